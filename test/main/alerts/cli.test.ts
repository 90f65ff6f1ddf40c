import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { alertsCommand } from '../../../src/main/cli/main'
import { createMemoryStore } from '../../../src/main/secrets'
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
        'No slack URL for channel "team": store it in the keychain as "alert-channel:team" (watchdesk keys) or set WATCHDESK_ALERT_CHANNEL_TEAM.',
    })
    const unknown = captureIo()
    expect(
      await alertsCommand(['test', 'nope', '--data-dir', dir], unknown.io, { secrets: createMemoryStore() }),
    ).toBe(2)
    expect(unknown.err[0]).toMatch(/there is no alert channel "nope"/)
  })
})
