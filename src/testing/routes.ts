import { API_PATH } from '../client/api-base.js';
import type { RecordOf, StatusKind } from '../kinds.js';
import { recordRead } from './fake-kinds.js';
import type { ResolvedPartner } from './partners.js';
import { json, problem } from './responses.js';
import type { TokenAuthority, TokenRejection } from './tokens.js';

export interface RouteContext {
  readonly requestId: string;
  readonly tokenTtlSeconds: number;
  readonly tokens: TokenAuthority;
  partner(partnerId: string): ResolvedPartner | undefined;
  /** Due changes applied, the read counted. */
  record(kind: StatusKind, externalId: string): RecordOf<StatusKind> | undefined;
  /** `undefined` when no partner route matches `path`. */
  partnerRoute(request: Request, url: URL, path: string, partnerId: string): Promise<Response> | undefined;
}

const REJECTIONS: Record<TokenRejection, string> = {
  missing: 'The Authorization header is missing: send "Authorization: Bearer <access token>"',
  malformed: 'The Authorization header is not "Bearer <access token>"',
  invalid: 'The access token is invalid',
  expired: 'The access token has expired; mint a new one through POST /auth/token',
  revoked: 'The access token has been revoked; mint a new one through POST /auth/token',
};

export async function handleRoute(request: Request, url: URL, ctx: RouteContext): Promise<Response> {
  const at = url.pathname.indexOf(API_PATH);
  const route = at === -1 ? undefined : url.pathname.slice(at + API_PATH.length);
  if (route === undefined || route === '' || route === '/') {
    return problem(404, 'not_found', `No endpoint at ${url.pathname}`, ctx.requestId);
  }
  if (route === '/auth/token') return exchangeToken(request, ctx);

  // the partner credentials go to the token exchange alone: a business endpoint refuses them
  if (request.headers.has('x-partner-id') || request.headers.has('x-partner-secret')) {
    return problem(
      400,
      'partner_headers_not_allowed',
      'x-partner-id and x-partner-secret are only sent to POST /auth/token; business endpoints take the Bearer token alone',
      ctx.requestId,
    );
  }
  const claims = await ctx.tokens.verify(request.headers.get('authorization'));
  if (typeof claims === 'string') return unauthorized(REJECTIONS[claims], ctx.requestId);
  const partner = ctx.partner(claims.partnerId);
  if (partner === undefined || !partner.enabled || !partner.apiEnabled) {
    return unauthorized('The partner of this token is disabled or has no partner API access', ctx.requestId);
  }

  const isMe = /^\/auth\/me\/?$/.test(route);
  const read = isMe ? undefined : recordRead(route);
  if (!isMe && read === undefined) {
    return (
      ctx.partnerRoute(request, url, route, partner.partnerId) ?? problem(404, 'not_found', `No endpoint at ${url.pathname}`, ctx.requestId)
    );
  }
  if (request.method !== 'GET') {
    return problem(405, 'method_not_allowed', `${request.method} is not allowed here; use GET`, ctx.requestId, { allow: 'GET' });
  }
  if (read === undefined) {
    return json(200, { partnerId: partner.partnerId, partnerApiEnabled: true }, ctx.requestId);
  }
  let externalId: string;
  try {
    externalId = decodeURIComponent(read.rawId);
  } catch {
    return problem(400, 'bad_request', 'The externalId is not valid percent-encoding', ctx.requestId);
  }
  const record = ctx.record(read.kind, externalId);
  if (record === undefined) {
    return problem(404, 'not_found', `No ${read.kind} with externalId ${JSON.stringify(externalId)}`, ctx.requestId);
  }
  return json(200, record, ctx.requestId);
}

async function exchangeToken(request: Request, ctx: RouteContext): Promise<Response> {
  if (request.method !== 'POST') {
    return problem(405, 'method_not_allowed', `${request.method} is not allowed here; use POST`, ctx.requestId, { allow: 'POST' });
  }
  if (request.headers.has('authorization')) {
    return problem(400, 'bearer_not_allowed', 'POST /auth/token takes no Authorization header', ctx.requestId);
  }
  const partnerId = request.headers.get('x-partner-id');
  const secret = request.headers.get('x-partner-secret');
  if (!partnerId || !secret) {
    return unauthorized('Both x-partner-id and x-partner-secret headers are required', ctx.requestId);
  }
  const partner = ctx.partner(partnerId);
  if (partner?.partnerSecret !== secret) {
    return unauthorized('Invalid partner credentials', ctx.requestId);
  }
  if (!partner.enabled) return unauthorized('The partner is disabled', ctx.requestId);
  if (!partner.apiEnabled) return unauthorized('The partner has no partner API access (PartnerApiEnabled is false)', ctx.requestId);
  const accessToken = await ctx.tokens.issue(partner.partnerId, ctx.tokenTtlSeconds);
  return json(200, { accessToken, tokenType: 'Bearer', expiresIn: ctx.tokenTtlSeconds }, ctx.requestId, {
    'cache-control': 'no-store',
  });
}

function unauthorized(message: string, requestId: string): Response {
  return problem(401, 'unauthorized', message, requestId, { 'www-authenticate': 'Bearer' });
}
