// A webhook controller in NestJS 11 (on Express). Run: npx tsx examples/webhooks/nestjs.ts
// NestFactory.create(AppModule, { rawBody: true }) keeps the raw bytes in req.rawBody beside the
// parsed JSON; handler.node(req, res) verifies the signature over them and answers on res.
// The handler is an async provider (useFactory), so its setup (PostgresEventStore.ensureSchema())
// is awaited before the app starts; Nest's shutdown hooks drain it, then close the pool.
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
  type OnApplicationShutdown,
  type RawBodyRequest,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Request, Response } from 'express';
import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore } from 'checkout-partner-sdk/postgres';
import { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import pg from 'pg';

/** The injection token of the app's one webhook handler. */
export const WEBHOOK_HANDLER = Symbol('WEBHOOK_HANDLER');
/** The injection token of what `WebhooksModule.forRoot` was given (the handler's options and shutdown work). */
const WEBHOOKS_OPTIONS = Symbol('WEBHOOKS_OPTIONS');

/** What `WebhooksModule.forRoot` takes. */
export interface WebhooksModuleOptions {
  /**
   * The handler's options, or an async function of them: Nest awaits an async provider
   * (`useFactory`) before the app starts, so e.g. `await store.ensureSchema()` is done before the
   * first delivery.
   */
  handler: WebhookHandlerOptions | (() => Promise<WebhookHandlerOptions>);
  /** Runs once the handler has drained and the server has closed (e.g. `pool.end()`). */
  onShutdown?: (() => Promise<void> | void) | undefined;
}

@Controller('webhooks')
export class WebhooksController implements BeforeApplicationShutdown, OnApplicationShutdown {
  // @Inject names the token, so this works without emitDecoratorMetadata (tsx, esbuild, vitest)
  constructor(
    @Inject(WEBHOOK_HANDLER) private readonly handler: WebhookHandler,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksModuleOptions,
  ) {}

  @Post()
  receive(@Req() req: RawBodyRequest<Request>, @Res() res: Response): void {
    this.handler.node(req, res); // @Res(): the handler writes the answer
  }

  /**
   * On app.close() (here at SIGTERM), before the server closes: new
   * deliveries get 503 and the events in hand finish. (beforeApplicationShutdown, not
   * onApplicationShutdown: the latter runs after the server closed, too late to answer 503.)
   */
  async beforeApplicationShutdown(): Promise<void> {
    const report = await this.handler.drain(); // 10 s by default: within a 30 s grace period
    if (!report.drained) console.warn(`left ${report.inHand.length} deliveries to redelivery`, report.inHand);
  }

  /** After the server closed and the handler drained: close what the handler used (a pool, a Redis client). */
  async onApplicationShutdown(): Promise<void> {
    await this.options.onShutdown?.();
  }
}

@Module({})
export class WebhooksModule {
  static forRoot(options: WebhooksModuleOptions): DynamicModule {
    const { handler } = options;
    return {
      module: WebhooksModule,
      controllers: [WebhooksController],
      providers: [
        { provide: WEBHOOKS_OPTIONS, useValue: options },
        // an async provider: Nest awaits it before the app listens
        {
          provide: WEBHOOK_HANDLER,
          useFactory: async () => createWebhookHandler(typeof handler === 'function' ? await handler() : handler),
        },
      ],
    };
  }
}

/** A Nest app with POST /webhooks; `rawBody: false` shows what happens without it (500 naming the fix). */
export function createApp(options: WebhookHandlerOptions | WebhooksModuleOptions, { rawBody = true } = {}): Promise<INestApplication> {
  const module = 'handler' in options ? options : { handler: options };
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- Nest types its plain options object as a class
  return NestFactory.create(WebhooksModule.forRoot(module), { rawBody, logger: false });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pool =
    process.env.DATABASE_URL === undefined
      ? undefined
      : new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000 });
  // required by pg: an idle client whose session ends (a restart, a failover) is reported here; without a listener the process crashes
  pool?.on('error', (error) => console.error('idle PostgreSQL client lost:', error.message));
  const app = await createApp({
    handler: async () => {
      // with PostgreSQL: the table is created (if missing) before the app takes deliveries
      const store = pool === undefined ? undefined : new PostgresEventStore({ pool });
      await store?.ensureSchema();
      return {
        secret: (process.env.WEBHOOK_SIGNING_SECRET ?? '').split(','),
        client: new CheckoutClient(),
        ...(store === undefined ? {} : { store }),
        resolveOrderExternalId: (event) => (typeof event.tradeId === 'string' ? `order-of-${event.tradeId}` : undefined),
        onEvent: ({ event, confirmed }) => console.log(event.type, event.eventId, { confirmed }),
      };
    },
    onShutdown: () => pool?.end(),
  });
  // app.close(): beforeApplicationShutdown (drain) → server closed → onApplicationShutdown (pool.end),
  // then exit 0 (enableShutdownHooks() runs the same, then ends the process by re-raising SIGTERM)
  process.once('SIGTERM', () => void app.close());
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
}
