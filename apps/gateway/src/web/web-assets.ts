import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Response } from 'express';
import { LOGGER } from '../infra/tokens';

/**
 * Where `vite build` leaves the web client (apps/web/dist). The same relative path holds from
 * apps/gateway/src/web (tests) and apps/gateway/dist/web (the image), which ships both folders.
 */
export const WEB_DIST_DIR = resolve(__dirname, '../../../web/dist');

/**
 * The page only talks to this origin and renders no HTML from the API (markdown goes through
 * react-markdown, which builds elements), so a tight policy costs nothing; it also keeps a stray
 * script away from the API key in localStorage.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // A new build changes the asset names that index.html points at: never serve a stale page.
  'cache-control': 'no-cache',
} as const;

/** Serves the built web client's files; the only place that reads apps/web/dist. */
@Injectable()
export class WebAssets implements OnModuleInit {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  readonly root = WEB_DIST_DIR;

  onModuleInit(): void {
    if (!this.built()) this.logger.warn({ dir: this.root }, 'web client not built: GET / answers 404 (npm run build)');
  }

  sendPage(res: Response): void {
    if (!this.built()) throw new AppError(ErrorCode.NotFound, 'the web client is not built into this gateway (npm run build)');
    res.set(PAGE_HEADERS);
    res.sendFile('index.html', { root: this.root, dotfiles: 'deny' });
  }

  /** Vite names assets by content hash, so they never change under a name. */
  sendAsset(name: string, res: Response): void {
    const dir = join(this.root, 'assets');
    const file = resolve(dir, name);
    if (!file.startsWith(dir + sep) || !existsSync(file)) throw new AppError(ErrorCode.NotFound, `no such file: /assets/${name}`);
    res.set('x-content-type-options', 'nosniff');
    res.sendFile(file, { dotfiles: 'deny', immutable: true, maxAge: '365d' }, (err) => {
      if (err && !res.headersSent) res.status(404).end();
    });
  }

  private built(): boolean {
    return existsSync(join(this.root, 'index.html'));
  }
}
