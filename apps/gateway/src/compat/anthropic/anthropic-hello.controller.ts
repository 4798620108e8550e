import { Controller, Get, Header, UseFilters } from '@nestjs/common';
import { AnthropicErrorFilter } from './anthropic-error.filter';

/**
 * `GET /anthropic/api/hello`, Anthropic's connectivity check: Claude Code sends `HEAD` here at
 * start (without its key) and its `doctor` a `GET`. No key is asked for and nothing is read, so
 * it answers at once and tells a caller nothing beyond that the gateway is up.
 */
@Controller('anthropic/api')
@UseFilters(AnthropicErrorFilter)
export class AnthropicHelloController {
  @Get('hello')
  @Header('Cache-Control', 'no-store')
  hello() {
    return { type: 'hello' };
  }
}
