import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { useRelayProcesses } from '../../support/relay-process'
import { cliPath, useServeProcess } from '../../support/serve-process'
import { runMain } from '../../support/cli'
import { callApi, useTestConsole } from '../../support/console'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useListenProcess } from '../forward/processes'
import { useTestTargets } from '../forward/target'
import { envelope, post, secretA } from '../webhooks/helpers'

/** Issue 30, items 1-3: a data dir whose config.json holds a credential in every place one can sit
 * (forward target URL userinfo, `?apikey=` and header; chain node `?key=`; reference `?token=` and
 * header; a source's URL userinfo; an alert channel's URL from the environment; an ad-hoc
 * `--forward-to` URL's userinfo and `?token=`). Each is a distinct string, searched for byte for
 * byte in everything watchdesk writes or answers. */
const planted = {
  targetPassword: 'PLANTED-target-userinfo-pw-1a',
  targetApikey: 'PLANTED-target-apikey-2b',
  targetBearer: 'PLANTED-target-bearer-3c',
  chainKey: 'PLANTED-chain-node-key-4d',
  referenceToken: 'PLANTED-reference-token-5e',
  referenceHeader: 'PLANTED-reference-header-6f',
  sourcePassword: 'PLANTED-source-userinfo-pw-7g',
  alertUrl: 'PLANTED-alert-channel-path-8h',
  adhocPassword: 'PLANTED-adhoc-userinfo-pw-9i',
  adhocToken: 'PLANTED-adhoc-token-0j',
}
const all = Object.values(planted)

function leaks(text: string | Buffer): string[] {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text
  return all.filter((secret) => bytes.includes(Buffer.from(secret)))
}

describe('credentials in config.json', () => {
  const tempDir = useTempDir('watchdesk-config-secrets-')
  const serve = useServeProcess()
  const startListen = useListenProcess()
  const startTarget = useTestTargets()
  const startRelay = useRelayProcesses()
  const startConsole = useTestConsole()
  const clients: Client[] = []
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close()
  })

  const env = {
    ...process.env,
    WATCHDESK_WEBHOOK_SECRETS: secretA,
    WATCHDESK_LOG_LEVEL: 'debug',
    WATCHDESK_ALERT_CHANNEL_OPS: `https://hooks.example/${planted.alertUrl}`,
  } as Record<string, string>

  function plantedConfig(appUrl: string) {
    const app = new URL(appUrl)
    return {
      forward: {
        targets: {
          hook: {
            url: `http://ops:${planted.targetPassword}@${app.host}/hook?apikey=${planted.targetApikey}&team=ops`,
            headers: { Authorization: `Bearer ${planted.targetBearer}` },
          },
        },
      },
      chains: {
        '1': {
          url: `http://127.0.0.1:9/rpc?key=${planted.chainKey}`,
          references: [
            {
              name: 'second',
              url: `http://127.0.0.1:9/ref?token=${planted.referenceToken}`,
              headers: { 'x-api-key': planted.referenceHeader },
            },
          ],
        },
      },
      sources: { team: { url: `http://relay:${planted.sourcePassword}@127.0.0.1:9` } },
      alerts: { channels: { ops: { type: 'webhook' } } },
    }
  }

  const send = (url: string, id: string) => {
    const body = envelope(id, 'funding.completed')
    return post(url, body, { 'x-service-signature': signBody(secretA, body) })
  }

  it('reach no backup, settings.get, CLI output, log line, SQLite file or MCP answer; restore names them', async () => {
    const app = await startTarget()
    const dataDir = tempDir()
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify(plantedConfig(app.url), null, 2))
    const seen: { where: string; text: string | Buffer }[] = []

    // serve: settings.get, forward.status, /metrics over the real HTTP API; its logs at debug.
    const served = await serve(['--data-dir', dataDir], env)
    const api = async (method: string, body: unknown = {}) => {
      const r = await fetch(`${served.consoleUrl}/api/call/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const text = await r.text()
      seen.push({ where: `API ${method}`, text })
      return JSON.parse(text) as { ok: boolean; value: any }
    }
    const settings = await api('settings.get')
    expect(settings.ok).toBe(true)
    const hook = settings.value.config.forward.targets.hook
    expect(hook.url).toBe(`http://…@${new URL(app.url).host}/hook?apikey=…y-2b&team=ops`)
    expect(hook.headers.Authorization).toBe('…r-3c')
    expect(settings.value.config.sources.team.url).toBe('http://…@127.0.0.1:9')
    expect((await send(`${served.listenerUrl}/webhooks`, 'evt_secrets_1')).status).toBe(200)
    await waitFor(() => app.acknowledged.has('evt_secrets_1'), 'the event forwarded to the target')
    // Sending used the real credentials.
    const got = app.received.find((r) => r.id === 'evt_secrets_1')!
    expect(got.headers.authorization).toBe(`Bearer ${planted.targetBearer}`)
    await api('forward.status')
    await api('chains.list')
    await api('app.doctor')
    const metrics = await fetch(`${served.consoleUrl}/metrics`, {
      headers: { authorization: `Bearer ${served.token}` },
    })
    seen.push({ where: '/metrics', text: await metrics.text() })
    served.process.kill('SIGTERM')
    await new Promise((resolve) => served.process.once('exit', resolve))
    seen.push({ where: 'serve output and log', text: served.output() })

    // listen with an ad-hoc target whose URL carries credentials.
    const adhocApp = await startTarget()
    const adhoc = new URL(adhocApp.url)
    const adhocUrl = `http://user:${planted.adhocPassword}@${adhoc.host}/h?token=${planted.adhocToken}`
    const listen = await startListen(['--forward-to', adhocUrl, '--data-dir', dataDir], env)
    expect((await send(listen.webhookUrl, 'evt_secrets_2')).status).toBe(200)
    await waitFor(
      () =>
        adhocApp.acknowledged.has('evt_secrets_2') &&
        listen.stdout().includes(`POST http://…@${adhoc.host}/h?token=…n-0j`),
      'the event forwarded to the ad-hoc target, and its line',
    )
    expect(adhocApp.received[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`user:${planted.adhocPassword}`).toString('base64')}`,
    )
    listen.process.kill('SIGINT')
    expect(await listen.exited).toBe(0)
    seen.push(
      { where: 'listen stdout', text: listen.stdout() },
      { where: 'listen stderr', text: listen.stderr() },
    )

    // The other commands, through the command line's main() in this process: the same commands,
    // lines and log lines (on stderr, redacted as bin/watchdesk does) without a Node start each.
    const backupFile = join(tempDir(), 'secrets.backup')
    const restoredDir = join(tempDir(), 'restored')
    const commands = [
      ['doctor'],
      ['storage'],
      ['config', 'get'],
      ['config', 'get', '--effective'],
      ['config', 'get', 'forward.targets.hook.url'],
      ['config', 'get', 'forward.targets.hook.headers.Authorization'],
      ['sources', 'list'],
      ['alerts', 'channel', 'list'],
      ['events', '--json'],
      ['backup', backupFile],
    ]
    for (const args of commands) {
      const r = await runMain([...args, '--data-dir', dataDir], env)
      seen.push({ where: `watchdesk ${args.join(' ')}`, text: r.stdout + r.stderr })
    }
    expect(
      seen.find((s) => s.where === 'watchdesk config get forward.targets.hook.headers.Authorization')!.text,
    ).toBe('…r-3c\n')
    const restored = await runMain(['restore', backupFile, '--data-dir', restoredDir], env)
    expect(restored.code, restored.stderr).toBe(0)
    seen.push({ where: 'watchdesk restore', text: restored.stdout + restored.stderr })
    for (const key of [
      'forward.targets.hook.url',
      'forward.targets.hook.headers.Authorization',
      'chains.1.url',
      'chains.1.references.0.url',
      'chains.1.references.0.headers.x-api-key',
      'sources.team.url',
    ])
      expect(restored.stdout).toContain(`  ${key}: `)
    expect(restored.stdout).toContain('watchdesk config set forward.targets.hook.headers.Authorization VALUE')
    seen.push({ where: 'the backup file', text: readFileSync(backupFile) })
    seen.push({ where: 'the restored config.json', text: readFileSync(join(restoredDir, 'config.json')) })

    // relay on a data dir with the same config.
    const relayDir = tempDir()
    writeFileSync(join(relayDir, 'config.json'), JSON.stringify(plantedConfig(app.url)))
    const relay = startRelay(`sqlite:${join(relayDir, 'relay.db')}`, { ...env, WATCHDESK_DATA_DIR: relayDir })
    await relay.ready
    seen.push({ where: 'relay output', text: relay.output() })

    // MCP: every tool, through the SDK's own client.
    const client = new Client({ name: 'watchdesk-secrets-test', version: '1.0.0' })
    clients.push(client)
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, 'mcp', '--data-dir', dataDir],
        env,
      }),
    )
    const { tools } = await client.listTools()
    for (const tool of tools) {
      const answer = await client.callTool({ name: tool.name, arguments: {} }).catch((e: Error) => e.message)
      seen.push({ where: `MCP ${tool.name}`, text: JSON.stringify(answer) })
    }
    expect(seen.find((s) => s.where === 'MCP forward_status')!.text).toContain('hook')

    // SQLite, every file of the database.
    for (const file of readdirSync(dataDir).filter((f) => f.startsWith('watchdesk.db')))
      seen.push({ where: `SQLite ${file}`, text: readFileSync(join(dataDir, file)) })
    const db = Buffer.concat(
      ['watchdesk.db', 'watchdesk.db-wal']
        .map((f) => join(dataDir, f))
        .filter(existsSync)
        .map((f) => readFileSync(f)),
    )
    // The ad-hoc target's stored name is its URL without userinfo or query.
    expect(db.includes(Buffer.from(`url:http://${adhoc.host}/h`))).toBe(true)

    expect(seen.length).toBeGreaterThan(20)
    const found = seen.flatMap((s) => leaks(s.text).map((secret) => `${secret} in ${s.where}`))
    expect(found).toEqual([])
  }, 300_000)

  it('a Settings round trip keeps every masked value, and a new address needs the secret typed again', async () => {
    const app = await startTarget()
    const dataDir = tempDir()
    const config = plantedConfig(app.url)
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify(config, null, 2))
    // The round trip is the API's and the config writer's: serve mode in this process (the test
    // above runs the real processes for what they print and log).
    const c = await startConsole({ dataDir, env })
    const api = async (method: string, body: unknown = {}) =>
      (await callApi(c, method, body)).json as { ok: boolean; value: any }
    const shown = (await api('settings.get')).value.config
    const target = shown.forward.targets.hook
    // What the Forward targets form sends: the URL as shown with its path edited, no headers.
    const edited = await api('forward.targets.set', {
      name: 'hook',
      target: { url: target.url.replace('/hook?', '/hook2?'), enabled: true },
    })
    expect(edited.ok, JSON.stringify(edited)).toBe(true)
    expect(leaks(JSON.stringify(edited))).toEqual([])
    // What a Settings field sends: one dotted key, with the masked value in it.
    const saved = await api('settings.update', {
      set: { 'chains.1.url': shown.chains['1'].url, 'sources.team.url': shown.sources.team.url },
      unset: [],
    })
    expect(saved.value.saved, JSON.stringify(saved)).toBe(true)
    const onDisk = JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))
    expect(onDisk.forward.targets.hook).toEqual({
      ...config.forward.targets.hook,
      url: config.forward.targets.hook.url.replace('/hook?', '/hook2?'),
      enabled: true,
    })
    expect(onDisk.sources.team.url).toBe(config.sources.team.url)

    const moved = await api('forward.targets.set', {
      name: 'hook',
      target: { url: target.url.replace(new URL(app.url).host, 'elsewhere.example'), enabled: true },
    })
    expect(moved.ok).toBe(false)
    expect(JSON.stringify(moved)).toContain('type the value itself')
    expect(readFileSync(join(dataDir, 'config.json'), 'utf8')).toBe(JSON.stringify(onDisk, null, 2) + '\n')
  }, 120_000)
})
