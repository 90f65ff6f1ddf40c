import { z } from 'zod'
import { methodNames, methods, pushes, pushTopics } from '../contract'
import {
  SyncAnchor,
  SyncCursorRefusal,
  SyncError,
  SyncPage,
  maxAnchorIds,
  syncPageLimit,
} from '../contract/sync'
import { errorCodes } from '../result'

/** OpenAPI 3.1 documents of the console API and of the relay's sync API, generated from the zod
 * contract (zod's JSON Schema output, draft 2020-12, which OpenAPI 3.1 uses as is). Nothing here
 * is written by hand per method: a method added to the contract is in the document, so a client
 * generated from it cannot drift from the code. Served at `GET /openapi.json` on each port (it
 * holds no secret) and written to docs/openapi/ by `watchdesk openapi`. */

type Json = Record<string, unknown>

/** A zod schema as JSON Schema; `io` picks the request (input) or the answer (output) side. A
 * part that JSON Schema cannot express (a transform, a custom check) becomes "any value". */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json
  delete json.$schema
  return json
}

const jsonContent = (schema: Json) => ({ 'application/json': { schema } })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

const apiError: Json = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', enum: [...errorCodes] },
    message: { type: 'string', description: 'One sentence naming the cause and the fix.' },
    detail: {},
  },
}
const failure: Json = {
  type: 'object',
  required: ['ok', 'error'],
  properties: { ok: { const: false }, error: ref('ApiError') },
}
const failureResponse = (description: string) => ({ description, content: jsonContent(ref('Failure')) })

/** The HTTP status each error code is answered with (src/main/transport/http.ts). */
const failures = {
  '400': failureResponse('bad_request: the request does not match the method’s schema'),
  '401': failureResponse('unauthorized: the launch token is missing or wrong'),
  '403': failureResponse('forbidden: not this console’s Host or Origin, or the service refused'),
  '404': failureResponse('not_found'),
  '409': failureResponse('conflict'),
  '429': failureResponse('rate_limited'),
  '500': failureResponse('internal'),
  '502': failureResponse('upstream: the payments API or a node answered badly'),
  '503': failureResponse('unavailable or keychain_unavailable'),
}

/** `refusals`: the answers other than 200, with the JSON body each server really sends. */
const metricsPath = (security: string, description: string, refusals: Json) => ({
  get: {
    operationId: 'metrics',
    summary: 'Prometheus metrics (text exposition format)',
    description,
    security: [{ [security]: [] }],
    responses: {
      '200': { description: 'Prometheus text', content: { 'text/plain': { schema: { type: 'string' } } } },
      ...refusals,
    },
  },
})

const openapiPath = (title: string) => ({
  get: {
    operationId: 'openapi',
    summary: `This document (${title}); no token needed, it holds no secret`,
    security: [],
    responses: { '200': { description: 'OpenAPI 3.1', content: jsonContent({ type: 'object' }) } },
  },
})

/** `app.health` → `app_health`: an operationId that every generator turns into a valid name. */
export const operationIdOf = (method: string): string => method.replace(/\./g, '_')

export function consoleOpenApi(version: string): Json {
  const paths: Json = {}
  for (const name of methodNames) {
    const spec = methods[name]
    paths[`/api/call/${name}`] = {
      post: {
        operationId: operationIdOf(name),
        summary: spec.summary,
        tags: [name.split('.')[0]],
        requestBody: { required: false, content: jsonContent(schemaOf(spec.request, 'input')) },
        responses: {
          '200': {
            description: `${name} answered`,
            content: jsonContent({
              type: 'object',
              required: ['ok', 'value'],
              properties: { ok: { const: true }, value: schemaOf(spec.response, 'output') },
            }),
          },
          ...failures,
        },
      },
    }
  }
  paths['/api/push'] = {
    get: {
      operationId: 'push',
      summary: 'Live updates as server-sent events: each `data:` line is one message {topic, payload}',
      description: `Topics: ${pushTopics.join(', ')}. \`app.heartbeat\` comes every 2 s; silence means the back end is gone.`,
      responses: {
        '200': {
          description: 'An event stream; each data line is one of the push messages',
          content: {
            'text/event-stream': {
              schema: {
                oneOf: pushTopics.map((topic) => ({
                  type: 'object',
                  required: ['topic', 'payload'],
                  properties: { topic: { const: topic }, payload: schemaOf(pushes[topic], 'output') },
                })),
              },
            },
          },
        },
        '401': failures['401'],
      },
    },
  }
  paths['/metrics'] = metricsPath(
    'consoleToken',
    'The console’s meters: listener totals, forward queue, chains. Takes the launch token.',
    { '401': failures['401'], '403': failures['403'] },
  )
  paths['/openapi.json'] = openapiPath('the console API')
  return {
    openapi: '3.1.0',
    info: {
      title: 'watchdesk console API',
      version,
      description:
        'Every method of the console, as the desktop app and the browser UI call it: POST /api/call/<method> with a JSON body, answered {ok:true,value} or {ok:false,error}. serve mode only, on loopback.',
    },
    servers: [{ url: 'http://127.0.0.1:7420', description: 'watchdesk serve (default port)' }],
    security: [{ consoleToken: [] }],
    tags: [...new Set(methodNames.map((name) => name.split('.')[0]!))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        consoleToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The per-launch token serve prints in its console URL (?token=…), or WATCHDESK_TOKEN.',
        },
      },
      schemas: { ApiError: apiError, Failure: failure },
    },
  }
}

export function relayOpenApi(version: string): Json {
  const error = (description: string) => ({ description, content: jsonContent(ref('SyncError')) })
  const cursor = {
    name: 'after',
    in: 'query',
    required: false,
    description:
      'Read what follows this cursor (the `next` of the previous page; 0 = from the start). Checked, never trusted: one of another store, past the end of this store, or naming another event than the store holds there is answered 409 (re-anchor with /sync/anchor).',
    schema: { type: 'string', default: '0' },
  }
  const cursorRefused = {
    description:
      'the cursor was not issued by this store as it is now (replaced, recreated or restored from an older backup): re-anchor with /sync/anchor',
    content: jsonContent(ref('SyncCursorRefusal')),
  }
  const refusals = {
    '401': error('no live relay token'),
    '403': error('the token’s scope does not allow this route'),
    '429': error('too many open streams'),
    '503': error('the relay store cannot be read now; retry later'),
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'watchdesk relay sync API',
      version,
      description:
        'What consoles read a relay through (`watchdesk sources add NAME URL`). Every route but /healthz and this document needs a relay token (`watchdesk relay token create NAME`).',
    },
    servers: [{ url: 'http://127.0.0.1:7422', description: 'watchdesk relay --port (default)' }],
    security: [{ relayToken: [] }],
    paths: {
      '/sync/events': {
        get: {
          operationId: 'syncEvents',
          summary: 'One page of events after a cursor, oldest first',
          parameters: [
            cursor,
            {
              name: 'limit',
              in: 'query',
              required: false,
              description: `outside ${syncPageLimit.min}–${syncPageLimit.max}: 400 with the range`,
              schema: {
                type: 'integer',
                minimum: syncPageLimit.min,
                maximum: syncPageLimit.max,
                default: syncPageLimit.default,
              },
            },
            {
              name: 'count',
              in: 'query',
              required: false,
              description: '1 = also count what remains after this page',
              schema: { type: 'string', enum: ['0', '1'] },
            },
          ],
          responses: {
            '200': { description: 'a page', content: jsonContent(ref('SyncPage')) },
            '400': error('a malformed cursor, or a limit outside 1–5000'),
            '409': cursorRefused,
            ...refusals,
          },
        },
      },
      '/sync/stream': {
        get: {
          operationId: 'syncStream',
          summary: 'Server-sent events: `events` (a SyncPage), `heartbeat`, `revoked`',
          parameters: [cursor],
          responses: {
            '200': {
              description: 'event stream; each `events` message carries a SyncPage as its data',
              content: { 'text/event-stream': { schema: ref('SyncPage') } },
            },
            '400': error('a malformed cursor'),
            '409': cursorRefused,
            ...refusals,
          },
        },
      },
      '/sync/anchor': {
        get: {
          operationId: 'syncAnchor',
          summary:
            'Where to read on after a 409: the cursor after the newest of these events the store holds',
          parameters: [
            {
              name: 'id',
              in: 'query',
              required: true,
              description: `the ids of the newest events the client holds, newest first (1 to ${maxAnchorIds}, repeated)`,
              schema: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: maxAnchorIds },
              style: 'form',
              explode: true,
            },
          ],
          responses: {
            '200': { description: 'the anchor', content: jsonContent(ref('SyncAnchor')) },
            '400': error('no id, or too many'),
            ...refusals,
          },
        },
      },
      '/sync/listener': {
        get: {
          operationId: 'syncListener',
          summary: 'The relay’s webhook listener: totals, rejections, storage',
          responses: {
            '200': { description: 'listener status', content: jsonContent({ type: 'object' }) },
            ...refusals,
          },
        },
      },
      '/healthz': {
        get: {
          operationId: 'healthz',
          summary: 'Liveness for a load balancer; not ok while the store is stalled or faulty',
          security: [],
          responses: {
            '200': { description: 'ok', content: jsonContent({ type: 'object' }) },
            '503': { description: 'not ok, with the cause', content: jsonContent({ type: 'object' }) },
          },
        },
      },
      '/metrics': metricsPath('relayToken', 'The relay’s meters. A relay token (metrics scope suffices).', {
        '401': refusals['401'],
      }),
      '/openapi.json': openapiPath('the relay sync API'),
    },
    components: {
      securitySchemes: {
        relayToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A relay token: watchdesk relay token create NAME --store …',
        },
      },
      schemas: {
        SyncPage: schemaOf(SyncPage, 'output'),
        SyncError: schemaOf(SyncError, 'output'),
        SyncCursorRefusal: schemaOf(SyncCursorRefusal, 'output'),
        SyncAnchor: schemaOf(SyncAnchor, 'output'),
      },
    },
  }
}
