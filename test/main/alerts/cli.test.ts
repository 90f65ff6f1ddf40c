import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { alertsCommand } from '../../../src/main/cli/main'
import { createMemoryStore } from '../../../src/main/secrets'
import { useTestKeychain } from '../../support/keychain'
import { useTempDir } from '../../support/temp'
import { hmac, useRecorder } from './harness'

/** `watchdesk alerts test [CHANNEL]`: the console's channels and secrets, from the command line. */

function captureIo(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = []
  const err: string[] = []
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), env }, out, err }
}

describe('watchdesk alerts test', () => {
  const tempDir = useTempDir()
  const recorder = useRecorder()

  it('sends a signed test alert to a webhook channel whose URL comes from the environment, never printing it', async () => {
    const hook = await recorder()
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ alerts: { channels: { ops: { type: 'webhook' }, desk: { type: 'desktop' } } } }),
    )
    const { io, out, err } = captureIo({
      WATCHDESK_ALERT_CHANNEL_OPS: `${hook.url}/hooks/secret-path-77 sign_me_9`,
    })
    const code = await alertsCommand(['test', 'ops', '--data-dir', dir, '--json'], io, {
      secrets: createMemoryStore(),
    })
    expect(err).toEqual([])
    expect(code).toBe(0)
    expect(hook.received).toHaveLength(1)
    expect(hook.received[0]!.path).toBe('/hooks/secret-path-77')
    expect(hook.received[0]!.headers['x-watchdesk-signature']).toBe(hmac('sign_me_9', hook.received[0]!.body))
    expect(hook.received[0]!.json).toMatchObject({
      source: 'watchdesk',
      kind: 'test',
      title: 'watchdesk test alert',
    })
    expect(out.map((l) => JSON.parse(l))).toEqual([
      { channel: 'ops', result: 'sent', detail: `HTTP 200 from ${hook.url}/…h-77` },
    ])
  })

  it('exits 1 when a channel fails, 2 for an unknown channel', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ alerts: { channels: { team: { type: 'slack' } } } }),
    )
    const failed = captureIo()
    expect(
      await alertsCommand(['test', '--data-dir', dir, '--json'], failed.io, { secrets: createMemoryStore() }),
    ).toBe(1)
    expect(JSON.parse(failed.out[0]!)).toEqual({
      channel: 'team',
      result: 'failed',
      detail:
        'No slack URL for channel "team": store it with "watchdesk alerts channel set team" (or in Settings → Alert channels), or set WATCHDESK_ALERT_CHANNEL_TEAM.',
    })
    const unknown = captureIo()
    expect(
      await alertsCommand(['test', 'nope', '--data-dir', dir], unknown.io, { secrets: createMemoryStore() }),
    ).toBe(2)
    expect(unknown.err[0]).toMatch(/there is no alert channel "nope"/)
  })
})

describe('watchdesk alerts channel', () => {
  const tempDir = useTempDir()
  const recorder = useRecorder()
  const keychain = useTestKeychain()

  it('channel set stores the URL from stdin in the keychain as alert-channel:<name>, then alerts test reaches the recorder; the desktop channel stays', async () => {
    const hook = await recorder()
    const dir = tempDir()
    const secrets = keychain()
    const url = `${hook.url}/alerts/secret-path-31 sign_me_4`
    const set = captureIo()
    expect(
      await alertsCommand(['channel', 'set', 'ops', '--type', 'webhook', '--data-dir', dir], set.io, {
        secrets,
        readSecret: async () => `${url}\n`,
      }),
    ).toBe(0)
    expect(set.out[0]).toMatch(
      /^added the webhook channel "ops" to alerts.channels; stored its webhook URL \(http:\/\/127\.0\.0\.1:\d+\/…h-31\) in the OS keychain as alert-channel:ops\. Test it with: watchdesk alerts test ops$/,
    )
    expect(set.out.join('\n')).not.toContain('secret-path-31')
    expect(await secrets.get('alert-channel:ops')).toEqual({ ok: true, value: url })
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).alerts.channels).toEqual({
      ops: { type: 'webhook' },
    })

    const test = captureIo()
    expect(await alertsCommand(['test', '--data-dir', dir, '--json'], test.io, { secrets })).toBe(0)
    expect(hook.received).toHaveLength(1)
    expect(hook.received[0]!.path).toBe('/alerts/secret-path-31')
    expect(hook.received[0]!.headers['x-watchdesk-signature']).toBe(hmac('sign_me_4', hook.received[0]!.body))
    expect(test.out.map((l) => JSON.parse(l).channel)).toEqual(['ops', 'desktop'])

    const list = captureIo()
    expect(await alertsCommand(['channel', 'list', '--data-dir', dir, '--json'], list.io, { secrets })).toBe(
      0,
    )
    expect(JSON.parse(list.out[0]!).map((c: { name: string; secret: string }) => [c.name, c.secret])).toEqual(
      [
        ['ops', 'keychain'],
        ['desktop', 'none'],
      ],
    )
    expect(list.out.join('\n')).not.toContain('secret-path-31')
  })

  it('channel set refuses a value that is not a URL, and an unknown channel without --type; channel remove takes the secret too, and removing desktop is remembered', async () => {
    const dir = tempDir()
    const secrets = keychain()
    const bad = captureIo()
    expect(
      await alertsCommand(['channel', 'set', 'ops', '--type', 'slack', '--data-dir', dir], bad.io, {
        secrets,
        readSecret: async () => 'not a url',
      }),
    ).toBe(2)
    expect(bad.err[0]).toContain("A slack channel's secret is its http(s) URL")
    expect(await secrets.get('alert-channel:ops')).toEqual({ ok: true, value: null })
    const unknown = captureIo()
    expect(
      await alertsCommand(['channel', 'set', 'team', '--data-dir', dir], unknown.io, {
        secrets,
        readSecret: async () => 'https://hooks.slack.com/x',
      }),
    ).toBe(2)
    expect(unknown.err[0]).toContain('add it with --type webhook, slack or email')

    const ok = captureIo()
    await alertsCommand(['channel', 'set', 'team', '--type', 'slack', '--data-dir', dir], ok.io, {
      secrets,
      readSecret: async () => 'https://hooks.slack.com/services/T0/B0/xyz',
    })
    const removed = captureIo()
    expect(
      await alertsCommand(['channel', 'remove', 'team', '--data-dir', dir], removed.io, { secrets }),
    ).toBe(0)
    expect(removed.out[0]).toBe(
      'removed the channel "team" from alerts.channels and its secret (alert-channel:team) from the keychain',
    )
    expect(await secrets.get('alert-channel:team')).toEqual({ ok: true, value: null })
    expect(
      await alertsCommand(['channel', 'remove', 'desktop', '--data-dir', dir], removed.io, { secrets }),
    ).toBe(0)
    const list = captureIo()
    await alertsCommand(['channel', 'list', '--data-dir', dir, '--json'], list.io, { secrets })
    expect(JSON.parse(list.out[0]!)).toEqual([])
  })
})
