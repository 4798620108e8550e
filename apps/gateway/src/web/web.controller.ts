import { Controller, Param, Res } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import type { Response } from 'express';
import { Route } from '../common/api-route.decorator';
import { WebAssets } from './web-assets';

/** The web client at `/`: public files, no key needed (the page asks for one). */
@Controller()
export class WebController {
  constructor(private readonly assets: WebAssets) {}

  @Route(apiRoutes.webPage)
  page(@Res() res: Response): void {
    this.assets.sendPage(res);
  }

  @Route(apiRoutes.webAsset)
  asset(@Param('name') name: string[] | string, @Res() res: Response): void {
    this.assets.sendAsset(Array.isArray(name) ? name.join('/') : name, res);
  }
}
