import { Module } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import { NatsEventBus } from '@weft/messaging';
import { NatsConnectionHandle } from '../infra/nats.connection';
import { LOGGER } from '../infra/tokens';
import { ModelsModule } from '../models/models.module';
import { AnthropicController } from './anthropic/anthropic.controller';
import { AnthropicErrorFilter } from './anthropic/anthropic-error.filter';
import { AnthropicHelloController } from './anthropic/anthropic-hello.controller';
import { AnthropicNotFound } from './anthropic/anthropic-not-found';
import { CompatInference } from './compat-inference.service';
import { CompatRequestLimits } from './compat-request-limits';
import { OpenAiController } from './openai/openai.controller';
import { OpenAiErrorFilter } from './openai/openai-error.filter';
import { OpenAiNotFound } from './openai/openai-not-found';
import { ResponseStore } from './responses/response-store.repository';
import { ResponsesController } from './responses/responses.controller';
import { ResponsesService } from './responses/responses.service';
import { StoredResponses } from './responses/stored-responses.service';

/** The OpenAI- and Anthropic-compatible APIs, for editors and agents that already speak them. */
@Module({
  imports: [ModelsModule],
  controllers: [OpenAiController, ResponsesController, AnthropicController, AnthropicHelloController],
  providers: [
    CompatInference,
    CompatRequestLimits,
    OpenAiErrorFilter,
    AnthropicErrorFilter,
    ResponseStore,
    StoredResponses,
    ResponsesService,
    OpenAiNotFound,
    AnthropicNotFound,
    {
      // Cancels reach the worker over the gateway's one NATS connection (borrowed, not closed here).
      provide: NatsEventBus,
      inject: [NatsConnectionHandle, LOGGER],
      useFactory: (nats: NatsConnectionHandle, log: Logger) => NatsEventBus.over(nats.connection, log),
    },
  ],
})
export class CompatModule {}
