/**
 * The smoke suite's entry for workerd (Cloudflare Workers), bundled by esbuild and run through
 * miniflare: GET / runs the suite against `env.BASE_URL` and answers `SMOKE {json}`.
 */
import { smoke } from './smoke.js';

interface Env {
  BASE_URL: string;
  PARTNER_ID: string;
  PARTNER_SECRET: string;
}

export default {
  async fetch(_request: Request, env: Env): Promise<Response> {
    const result = await smoke({ baseUrl: env.BASE_URL, partnerId: env.PARTNER_ID, partnerSecret: env.PARTNER_SECRET });
    return new Response(`SMOKE ${JSON.stringify({ runtime: 'workerd (miniflare 4)', ...result })}`, { status: result.ok ? 200 : 500 });
  },
};
