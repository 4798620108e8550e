import { Controller, Header, UseFilters } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { Route } from '../../common/api-route.decorator';
import { AnthropicErrorFilter } from './anthropic-error.filter';

/**
 * `GET /anthropic/api/hello`, Anthropic's connectivity check: Claude Code sends `HEAD` here at
 * start (without its key) and its `doctor` a `GET`. No key is asked for and nothing is read, so
 * it answers at once and tells a caller nothing beyond that the gateway is up.
 */
@Controller()
@UseFilters(AnthropicErrorFilter)
export class AnthropicHelloController {
  @Route(apiRoutes.anthropicHello)
  @Header('Cache-Control', 'no-store')
  hello() {
    return { type: 'hello' };
  }
}
