import { Module } from '@nestjs/common';
import { ModelsModule } from '../models/models.module';
import { AnthropicController } from './anthropic/anthropic.controller';
import { AnthropicErrorFilter } from './anthropic/anthropic-error.filter';
import { CompatInference } from './compat-inference.service';
import { OpenAiController } from './openai/openai.controller';
import { OpenAiErrorFilter } from './openai/openai-error.filter';

/** The OpenAI- and Anthropic-compatible APIs, for editors and agents that already speak them. */
@Module({
  imports: [ModelsModule],
  controllers: [OpenAiController, AnthropicController],
  providers: [CompatInference, OpenAiErrorFilter, AnthropicErrorFilter],
})
export class CompatModule {}
