import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../../src/main/cli/main'
import type { CliIo } from '../../../src/main/cli/io'
import { secretA, secretB, useWebhookBackend } from './helpers'

function capture(env: NodeJS.ProcessEnv = {}): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = []
  const stderr: string[] = []
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l), env }
}

describe('watchdesk send-test-event and events', () => {
  const start = useWebhookBackend()

  it('sends a signed test event to the listener named by the config, then lists it as JSON', async () => {
    const b = await start()
    const overlay = join(b.dataDir, 'cli-config.json')
    writeFileSync(overlay, JSON.stringify({ listener: { port: Number(new URL(b.webhookUrl).port) } }))
    const sendIo = capture({ WATCHDESK_WEBHOOK_SECRETS: secretA })
    const code = await main(
      ['send-test-event', 'payout.failed', '--data-dir', b.dataDir, '--config', overlay, '--json'],
      sendIo,
    )
    expect(sendIo.stderr).toEqual([])
    expect(code).toBe(0)
    const sent = JSON.parse(sendIo.stdout[0]!) as { id: string; status: number; endpoint: string }
    expect(sent.status).toBe(200)
    expect(sent.endpoint).toBe('env-1')
    expect(sendIo.stdout.join('\n')).not.toContain(secretA)

    const listIo = capture()
    expect(await main(['events', '--data-dir', b.dataDir, '--json', '--type', 'payout.failed'], listIo)).toBe(
      0,
    )
    const listed = listIo.stdout.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({
      id: sent.id,
      type: 'payout.failed',
      deliveries: 1,
      data: { test: true },
    })
    expect(listed[0]).toHaveProperty('created_at')
    expect(listed[0]).toHaveProperty('received_at')
  })

  it('prints a table by default and limits it with --limit', async () => {
    const b = await start()
    for (const type of ['card.frozen', 'funding.completed', 'report.ready']) {
      const io = capture({ WATCHDESK_WEBHOOK_SECRETS: secretB })
      expect(await main(['send-test-event', type, '--url', b.webhookUrl, '--data-dir', b.dataDir], io)).toBe(
        0,
      )
    }
    const io = capture()
    expect(await main(['events', '--data-dir', b.dataDir, '--limit', '2'], io)).toBe(0)
    const lines = io.stdout.join('\n').split('\n')
    // The zone is said once, in the header (the console writes times the same way).
    expect(lines[0]).toMatch(/^received \(UTC[^)]*\)\s+type\s+group\s+id\s+deliveries\s+endpoint\s+detail$/)
    expect(lines[1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\s/)
    expect(lines).toHaveLength(3)
    expect(lines[1]).toContain('report.ready')
    expect(lines[2]).toContain('1,000 USD → 998.75 USDC')
  })

  it('fails with a sentence when no secret is configured or the listener is not there', async () => {
    const b = await start()
    const noSecret = capture({})
    const code = await main(
      ['send-test-event', 'card.frozen', '--url', b.webhookUrl, '--data-dir', b.dataDir],
      noSecret,
    )
    // test/with-keychain.sh gives a fresh keychain: nothing under the watchdesk service, no env secret.
    expect(code).toBe(3)
    expect(noSecret.stderr.join('\n')).toMatch(/no webhook secret is configured/)
    const down = capture({ WATCHDESK_WEBHOOK_SECRETS: secretA })
    expect(
      await main(
        ['send-test-event', 'card.frozen', '--url', 'http://127.0.0.1:9/webhooks', '--data-dir', b.dataDir],
        down,
      ),
    ).toBe(3)
    expect(down.stderr.join('\n')).toMatch(/did not answer/)
    const missingDir = capture()
    expect(await main(['events', '--data-dir', join(b.dataDir, 'nope')], missingDir)).toBe(3)
    expect(missingDir.stderr.join('\n')).toMatch(/holds no database yet/)
  })
})
