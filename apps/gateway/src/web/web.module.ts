import { Module } from '@nestjs/common';
import { WebAssets } from './web-assets';
import { WebController } from './web.controller';

/** Serves apps/web's build from the gateway: one port, one origin, no CORS (docs/web.md). */
@Module({ controllers: [WebController], providers: [WebAssets] })
export class WebModule {}
