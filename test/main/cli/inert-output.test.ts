import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { runMain } from '../../support/cli'
import { cliPath } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useListenProcess } from '../forward/processes'
import { useTestTargets } from '../forward/target'
import { post, secretA } from '../webhooks/helpers'

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  WATCHDESK_WEBHOOK_SECRETS: secretA,
  WATCHDESK_LOG_LEVEL: 'warn',
})

/** What a hostile sender puts in the fields `events` and `listen` print: a window title (OSC 0),
 * a clipboard write (OSC 52), a line erased and a fake one printed, 8-bit CSIs (C1) and a
 * right-to-left override. The first event is stored, not forwarded (`--events funding.*`): an id
 * with ESC cannot go into a forward's `x-watchdesk-event-id` header (issue 29.2 is about that);
 * the second one's id holds only C1 controls, which a header carries, so it is forwarded and
 * replayed and its id printed on the attempt lines. */
const stored = {
  id: 'evt_\x1b]0;pwned\x07_\x1b]52;c;cHduZWQ=\x07',
  type: 'card.created\x1b]0;title\x07',
  data: { id: 'card_\x1b[2K\rall good' },
}
const forwarded = {
  id: 'evt_\u009b2K\u009b31m_b',
  type: 'funding.completed\x1b[2K\rall good',
  data: { id: 'fund_\x1b[2K\rall good\u009b31m\u202etxt.exe' },
}

/** Every character a terminal acts on instead of showing, except the newline between lines. */
const rawControl =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u

function expectInert(what: string, text: string): void {
  const found = rawControl.exec(text)
  expect(
    found,
    `${what} holds a raw U+${found?.[0].charCodeAt(0).toString(16)}:\n${JSON.stringify(text)}`,
  ).toBeNull()
}

/** `bin/watchdesk events --follow …` until SIGINT. */
function useFollow(): (args: string[]) => Promise<{ child: ChildProcess; out(): string; err(): string }> {
  const started: ChildProcess[] = []
  afterEach(() => {
    for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  })
  return async (args) => {
    const child = spawn(process.execPath, [cliPath, 'events', '--follow', '--interval', '50', ...args], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    started.push(child)
    let out = ''
    let err = ''
    child.stdout!.on('data', (c) => (out += c))
    child.stderr!.on('data', (c) => (err += c))
    // A Node start takes seconds of wall time at load average 25: 8 s timed out there.
    await waitFor(() => err.includes('following new events') || undefined, 'events --follow to start', {
      timeoutMs: 30_000,
    })
    return { child, out: () => out, err: () => err }
  }
}

const exitOf = (child: ChildProcess) =>
  child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

describe('text from a signed event is inert on the terminal', () => {
  const tempDir = useTempDir('watchdesk-inert-')
  const startListen = useListenProcess()
  const startTarget = useTestTargets()
  const startFollow = useFollow()

  it('events, events --follow, listen and events replay print no raw control character; --json keeps the exact text', async () => {
    const app = await startTarget()
    const dataDir = tempDir()
    const listen = await startListen(
      ['--forward-to', app.url, '--events', 'funding.*', '--data-dir', dataDir],
      env(),
    )
    const followText = await startFollow(['--data-dir', dataDir])
    const followJson = await startFollow(['--json', '--data-dir', dataDir])

    for (const event of [stored, forwarded]) {
      const body = JSON.stringify({ ...event, created_at: '2026-11-20T10:15:00Z' })
      const signature = { 'x-service-signature': signBody(secretA, body) }
      expect((await post(listen.webhookUrl, body, signature)).status).toBe(200)
    }
    await waitFor(() => app.received.length === 1 || undefined, 'the forward of the second event')
    await waitFor(() => listen.stdout().includes('→ 200') || undefined, "listen's attempt line")
    for (const follow of [followText, followJson])
      await waitFor(() => follow.out().includes('txt.exe') || undefined, 'events --follow to print both')
    for (const p of [listen.process, followText.child, followJson.child]) p.kill('SIGINT')
    expect(await listen.exited).toBe(0)
    expect(await exitOf(followText.child)).toBe(0)
    expect(await exitOf(followJson.child)).toBe(0)

    // These three through main() in this process (runMain: the lines redacted and made
    // terminal-safe as the process's own output is; listen and events --follow above are the real
    // processes' output): three Node starts fewer.
    const table = await runMain(['events', '--data-dir', dataDir], env())
    const json = await runMain(['events', '--json', '--data-dir', dataDir], env())
    const replay = await runMain(
      ['events', 'replay', forwarded.id, '--to', app.url, '--data-dir', dataDir],
      env(),
    )
    expect([table.code, json.code, replay.code]).toEqual([0, 0, 0])
    expect(app.received).toHaveLength(2)

    const outputs: [string, string][] = [
      ['listen stdout', listen.stdout()],
      ['listen stderr', listen.stderr()],
      ['events --follow stdout', followText.out()],
      ['events --follow stderr', followText.err()],
      ['events --follow --json stdout', followJson.out()],
      ['events stdout', table.stdout],
      ['events stderr', table.stderr],
      ['events --json stdout', json.stdout],
      ['events replay stdout', replay.stdout],
      ['events replay stderr', replay.stderr],
    ]
    for (const [what, text] of outputs) expectInert(what, text)

    // Readable: the escapes are shown, not dropped.
    expect(listen.stdout()).toContain(
      '← card.created\\x1b]0;title\\x07 evt_\\x1b]0;pwned\\x07_\\x1b]52;c;cHduZWQ=\\x07',
    )
    expect(listen.stdout()).toMatch(/→ 200 POST \S+ evt_\\x9b2K\\x9b31m_b \d+ ms/)
    expect(table.stdout).toContain('funding.completed\\x1b[2K\\x0dall good')
    expect(followText.out()).toContain('fund_\\x1b[2K\\x0dall good\\x9b31m\\u202etxt.exe')
    expect(replay.stdout).toMatch(/→ 200 POST \S+ evt_\\x9b2K\\x9b31m_b \d+ ms/)
    // --json is the exact JSON of the exact text: parsing gives back every character sent.
    for (const lines of [json.stdout, followJson.out()]) {
      const events = lines
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; type: string; data: { id: string } })
      for (const sent of [stored, forwarded]) expect(events).toContainEqual(expect.objectContaining(sent))
    }
  }, 60_000)
})
