/**
 * Where a service's NATS is and who it is there: a URL alone (tests, a NATS without
 * authorization), or with the user, password and CA the compose stack and remote workers use.
 */
export type NatsServer = string | { url: string; user?: string; password?: string; tlsCaFile?: string };

/** The settings every service reads (`natsEnv` in `@weft/config`). */
export interface NatsEnv {
  NATS_URL: string;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  NATS_TLS_CA?: string;
}

export function natsServerFrom(env: NatsEnv): NatsServer {
  return { url: env.NATS_URL, user: env.NATS_USER, password: env.NATS_PASSWORD, tlsCaFile: env.NATS_TLS_CA };
}

/** Options for `nats.connect` and Nest's NATS transport, which passes them through. */
export function natsConnectOptions(server: NatsServer) {
  const target = typeof server === 'string' ? { url: server } : server;
  return {
    servers: [target.url],
    ...(target.user ? { user: target.user, pass: target.password ?? '' } : {}),
    // With a CA the connection must be TLS; without one, TLS is used when the server asks for it.
    ...(target.tlsCaFile ? { tls: { caFile: target.tlsCaFile } } : {}),
    maxReconnectAttempts: -1,
  };
}
