import { Controller, Module } from '@nestjs/common';
import { apiRoutes, openApiDocument } from '@weft/contracts';
import { Route } from '../common/api-route.decorator';

/** Weft's release; the document's `info.version`. */
const API_VERSION = '0.1.0';

/** The API's OpenAPI 3.1 document, built once from the route table in libs/contracts; public, like the docs. */
@Controller()
export class OpenApiController {
  private readonly document = openApiDocument(API_VERSION);

  @Route(apiRoutes.openApi)
  get() {
    return this.document;
  }
}

@Module({ controllers: [OpenApiController] })
export class ApiDocsModule {}
