import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { WebAssets } from './web-assets';

/** The web client at `/`: public files, no key needed (the page asks for one). */
@Controller()
export class WebController {
  constructor(private readonly assets: WebAssets) {}

  @Get()
  page(@Res() res: Response): void {
    this.assets.sendPage(res);
  }

  @Get('assets/*name')
  asset(@Param('name') name: string[] | string, @Res() res: Response): void {
    this.assets.sendAsset(Array.isArray(name) ? name.join('/') : name, res);
  }
}
