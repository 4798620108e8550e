#!/usr/bin/env bash
# Writes an overlay's secrets.env with fresh random secrets, as `npm run setup` does for compose's
# .env: the admin token, NATS's two passwords and Redis's. An existing secrets.env is kept.
#   bash deploy/k8s/make-secrets.sh deploy/k8s/overlays/cpu-demo
set -euo pipefail
overlay=${1:?usage: make-secrets.sh <overlay folder>}
[ -f "$overlay/kustomization.yaml" ] || { echo "make-secrets.sh: $overlay has no kustomization.yaml" >&2; exit 1; }
out="$overlay/secrets.env"
if [ -f "$out" ]; then echo "make-secrets.sh: $out exists, kept"; exit 0; fi
# A letter first: NATS reads its passwords as config values, and hex that starts like a number
# (`3e5…`) stops nats-server at start (docker/nats-auth.conf).
random() { printf 'w%s' "$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"; }
umask 077
{
  echo "WEFT_ADMIN_TOKEN=$(random)"
  echo "WEFT_NATS_PASSWORD=$(random)"
  echo "WEFT_NATS_WORKER_PASSWORD=$(random)"
  echo "WEFT_REDIS_PASSWORD=$(random)"
  # The OIDC client's secret, when sign-in through your provider is on (docs/sso.md); else empty.
  echo "WEFT_OIDC_CLIENT_SECRET="
} >"$out"
echo "make-secrets.sh: wrote $out"
