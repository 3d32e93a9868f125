// A webhook controller in NestJS 11 (on Express). Run: npx tsx examples/webhooks/nestjs.ts
// NestFactory.create(AppModule, { rawBody: true }) keeps the raw bytes in req.rawBody beside the
// parsed JSON; handler.node(req, res) verifies the signature over them and answers on res.
import 'reflect-metadata';
import { pathToFileURL } from 'node:url';
import {
  Controller,
  Inject,
  Module,
  Post,
  Req,
  Res,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type INestApplication,
  type RawBodyRequest,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Request, Response } from 'express';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';

/** The injection token of the app's one webhook handler. */
export const WEBHOOK_HANDLER = Symbol('WEBHOOK_HANDLER');

@Controller('webhooks')
export class WebhooksController implements BeforeApplicationShutdown {
  // @Inject names the token, so this works without emitDecoratorMetadata (tsx, esbuild, vitest)
  constructor(@Inject(WEBHOOK_HANDLER) private readonly handler: WebhookHandler) {}

  @Post()
  receive(@Req() req: RawBodyRequest<Request>, @Res() res: Response): void {
    this.handler.node(req, res); // @Res(): the handler writes the answer
  }

  /** On app.close() (or SIGTERM with enableShutdownHooks()), before the server closes: finish the events in hand. */
  async beforeApplicationShutdown(): Promise<void> {
    // 20 s leaves room in a 30 s termination grace period for the rest of the shutdown
    const report = await this.handler.drain({ timeoutMs: 20_000 });
    if (report.timedOut) console.warn(`left ${report.inHand} deliveries to redelivery`, report.events);
  }
}

@Module({})
export class WebhooksModule {
  static forRoot(options: WebhookHandlerOptions): DynamicModule {
    return {
      module: WebhooksModule,
      controllers: [WebhooksController],
      providers: [{ provide: WEBHOOK_HANDLER, useValue: createWebhookHandler(options) }],
    };
  }
}

/** A Nest app with POST /webhooks; `rawBody: false` shows what happens without it (500 naming the fix). */
export function createApp(options: WebhookHandlerOptions, { rawBody = true } = {}): Promise<INestApplication> {
  return NestFactory.create(WebhooksModule.forRoot(options), { rawBody, logger: false });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = await createApp({
    secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
    client: new CheckoutClient(),
    resolveOrderExternalId: (event) => (typeof event['tradeId'] === 'string' ? `order-of-${event['tradeId']}` : undefined),
    onEvent: ({ event, confirmed }) => console.log(event.type, event.eventId, { confirmed }),
  });
  app.enableShutdownHooks(); // SIGTERM → beforeApplicationShutdown → drain, then the server closes
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
}
