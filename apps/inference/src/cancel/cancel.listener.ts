import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Routes } from '@weft/contracts';
import type { Subscription } from 'nats';
import { InferenceService } from '../generate/inference.service';
import { EVENT_BUS } from '../tokens';
import { NatsEventBus } from '@weft/messaging';

/**
 * Nest's NATS transport never tells a worker that the caller went away, so callers publish
 * `weft.inference.v1.cancel`; every worker hears it and the one running the request aborts it.
 */
@Injectable()
export class CancelListener implements OnApplicationBootstrap {
  private subscription?: Subscription;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: NatsEventBus,
    private readonly inference: InferenceService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = this.bus.subscribe(Routes.inferenceCancel, ({ requestId }) => this.inference.cancel(requestId));
    // The subscription is live on the server before the worker says it is ready.
    await this.bus.flush();
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
