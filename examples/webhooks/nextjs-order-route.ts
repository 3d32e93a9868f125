// A Next.js App Router route handler that reads an order: save as app/api/orders/[externalId]/route.ts.
import { CheckoutClient, NotFoundError } from 'checkout-partner-sdk';

// Made on the first request, not at module scope: `next build` imports this module while it
// collects page data, where CHECKOUT_BASE_URL and the credentials (set at run time) are absent and
// `new CheckoutClient()` would fail the build. One client per server instance keeps one token.
// In an app with several routes, put this getter in a module of its own (lib/checkout.ts) and import it.
let client: CheckoutClient | undefined;

function checkoutClient(): CheckoutClient {
  client ??= new CheckoutClient(); // reads CHECKOUT_BASE_URL, CHECKOUT_PARTNER_ID, CHECKOUT_PARTNER_SECRET
  return client;
}

export async function GET(_request: Request, { params }: { params: Promise<{ externalId: string }> }): Promise<Response> {
  const { externalId } = await params;
  try {
    const order = await checkoutClient().getOrderByExternalId(externalId);
    return Response.json({ externalId: order.externalId, status: order.settlement?.status ?? null });
  } catch (error) {
    if (error instanceof NotFoundError) return Response.json({ error: 'not_found' }, { status: 404 });
    throw error;
  }
}
