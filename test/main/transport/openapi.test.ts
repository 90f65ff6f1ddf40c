import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Validator } from '@seriousme/openapi-schema-validator'
import Ajv2020 from 'ajv/dist/2020.js'
import createClient from 'openapi-fetch'
import { beforeAll, describe, expect, it } from 'vitest'
import { methodNames } from '../../../src/shared/contract'
import { syncRoutes } from '../../../src/shared/contract/sync'
import { consoleOpenApi, operationIdOf, relayOpenApi } from '../../../src/shared/openapi'
import { version } from '../../../src/main/version'
import { createRelayToken } from '../../../src/main/relay'
import type { RelayStore, RunningRelay } from '../../../src/main/relay'
import type { RunningConsole } from '../../../src/main/serve'
import { unwrap } from '../../../src/shared/result'
import { useTestConsole } from '../../support/console'
import { useTempDir } from '../../support/temp'
import { deliver, useRelays } from '../relay/helpers'

const repoRoot = join(import.meta.dirname, '..', '..', '..')
const committed = (name: string) =>
  JSON.parse(readFileSync(join(repoRoot, 'docs', 'openapi', `${name}.json`), 'utf8')) as any

async function expectValidOpenApi(document: unknown): Promise<void> {
  const validator = new Validator()
  const result = await validator.validate(document as Parameters<Validator['validate']>[0])
  expect(result.errors ?? []).toEqual([])
  expect(result.valid).toBe(true)
  expect(validator.version).toBe('3.1')
}

/** Each document built once for the file (both are derived from the whole contract). */
let consoleDocument: ReturnType<typeof consoleOpenApi> | undefined
let relayDocument: ReturnType<typeof relayOpenApi> | undefined
const consoleDoc = () => (consoleDocument ??= consoleOpenApi(version))
const relayDoc = () => (relayDocument ??= relayOpenApi(version))

/** One JSON Schema 2020-12 validator per document holding its components, so the components an
 * answer refers to are compiled once for the file, not once per answer checked. */
const validators = new WeakMap<object, Ajv2020>()
function validatorOf(document: any): Ajv2020 {
  let ajv = validators.get(document)
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true })
    ajv.addSchema({ $id: 'doc', components: document.components }, 'doc')
    validators.set(document, ajv)
  }
  return ajv
}

/** The answer schema of one operation, compiled with a JSON Schema 2020-12 validator: the document
 * must describe what the server really answers, not only be well-formed. */
function answerValidator(document: any, path: string, method: 'get' | 'post', status = '200') {
  const content = document.paths[path][method].responses[status].content['application/json']
  const schema = JSON.parse(
    JSON.stringify(content.schema).replaceAll('"#/components/', '"doc#/components/'),
  ) as object
  return validatorOf(document).compile(schema)
}

describe('the console serves its OpenAPI 3.1 document', () => {
  // One console for the describe: every test reads (the document, answers, a 401).
  const startConsole = useTestConsole({ per: 'file' })
  const tempDir = useTempDir('watchdesk-openapi-', { per: 'file' })
  let c: RunningConsole
  beforeAll(async () => {
    c = await startConsole({ dataDir: tempDir() })
  })

  it('at /openapi.json without a token, valid, with every contract method, equal to docs/openapi/console.json', async () => {
    const response = await fetch(`${c.url}/openapi.json`)
    expect(response.status).toBe(200)
    const served = (await response.json()) as any
    await expectValidOpenApi(served)
    for (const name of methodNames) {
      expect(served.paths[`/api/call/${name}`]?.post?.operationId).toBe(operationIdOf(name))
    }
    expect(Object.keys(served.paths)).toEqual(
      expect.arrayContaining(['/api/push', '/metrics', '/openapi.json']),
    )
    expect(served.components.securitySchemes.consoleToken).toMatchObject({ type: 'http', scheme: 'bearer' })
    // The committed copy is the one a reader or a generator finds; it is regenerated, never edited:
    // bin/watchdesk openapi console > docs/openapi/console.json
    expect(served).toEqual(consoleDoc())
    expect(committed('console')).toEqual(served)
    expect(JSON.stringify(served)).not.toContain(c.token)
  })

  it('describes what the console really answers: app.health and settings.get validate against it', async () => {
    const document = consoleDoc()
    for (const method of ['app.health', 'settings.get', 'chains.list']) {
      const answer = await fetch(`${c.url}/api/call/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
        body: '{}',
      })
      const validate = answerValidator(document, `/api/call/${method}`, 'post')
      const body = await answer.json()
      expect(validate(body), `${method}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
  })

  it('declares the 401 that /metrics answers without the token, with the body it really sends', async () => {
    const answer = await fetch(`${c.url}/metrics`)
    expect(answer.status).toBe(401)
    const validate = answerValidator(consoleDoc(), '/metrics', 'get', '401')
    const body = await answer.json()
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true)
  })

  // The types generated from the document (openapi-typescript, 3–5 CPU-s for it) and a client
  // compiled against them with tsc --strict are docs/api.md's recipe, which
  // test/repo/docs-blocks.test.ts runs as written (and requires to stay runnable); this document is
  // the one it generates from (equal to docs/openapi/console.json, above).
  it('answers openapi-fetch, the client docs/api.md generates types for, on app.health', async () => {
    const client = createClient<any>({
      baseUrl: c.url,
      headers: { authorization: `Bearer ${c.token}` },
    })
    const { data, response } = await client.POST('/api/call/app.health', { body: {} })
    expect(response.status).toBe(200)
    expect(data).toMatchObject({ ok: true, value: { status: 'ok', shell: 'serve', version } })

    const refused = await createClient<any>({ baseUrl: c.url }).POST('/api/call/app.health', { body: {} })
    expect(refused.response.status).toBe(401)
    expect(refused.error).toMatchObject({ ok: false, error: { code: 'unauthorized' } })
  })
})

describe('the relay serves the sync API’s OpenAPI 3.1 document', () => {
  // One relay for the describe: two tests read, the last one stores its own event.
  const relays = useRelays({ per: 'file' })
  const tempDir = useTempDir('watchdesk-openapi-relay-', { per: 'file' })
  let store: RelayStore
  let relay: RunningRelay
  beforeAll(async () => {
    store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    relay = await relays.relay(store)
  })

  it('at /openapi.json without a token, valid, with every sync route, equal to docs/openapi/relay.json', async () => {
    const response = await fetch(`${relay.syncUrl}/openapi.json`)
    expect(response.status).toBe(200)
    const served = (await response.json()) as any
    await expectValidOpenApi(served)
    for (const route of syncRoutes) expect(served.paths[route], route).toBeDefined()
    expect(served.components.securitySchemes.relayToken).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(served).toEqual(relayDoc())
    expect(committed('relay')).toEqual(served)
  })

  it('declares the 401 that /metrics answers without a relay token, with the body it really sends', async () => {
    const answer = await fetch(`${relay.syncUrl}/metrics`)
    expect(answer.status).toBe(401)
    const validate = answerValidator(relayDoc(), '/metrics', 'get', '401')
    const body = await answer.json()
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true)
  })

  it('describes the pages the relay really serves', async () => {
    const token = unwrap(await createRelayToken(store, 'openapi-reader'))
    expect(await deliver(`${relay.listenerUrl}/webhooks`, 'evt_openapi_1')).toBe(200)
    const page = await fetch(`${relay.syncUrl}/sync/events?after=0&count=1`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const body = (await page.json()) as any
    expect(body.events).toHaveLength(1)
    const validate = answerValidator(relayDoc(), '/sync/events', 'get')
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true)
  })
})
