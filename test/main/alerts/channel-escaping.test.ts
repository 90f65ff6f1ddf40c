import { mkdirSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { SMTPServer } from 'smtp-server'
import { afterEach, describe, expect, it } from 'vitest'
import { sendAlert } from '../../../src/main/alerts'
import { createPushBus } from '../../../src/main/push'
import { createMemoryStore } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import { ChannelConfig } from '../../../src/shared/alerts/config'
import type { Alert } from '../../../src/shared/contract/alerts'
import { unwrap } from '../../../src/shared/result'
import { useTestConsole } from '../../support/console'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRecorder } from './harness'

/** An SMTP server on loopback that keeps each message as it arrived (headers and body). */
function useSmtpSink(): () => Promise<{ port: number; mails: string[] }> {
  const servers: SMTPServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))))
  })
  return async () => {
    const mails: string[] = []
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, done) {
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', () => {
          mails.push(Buffer.concat(chunks).toString('utf8'))
          done()
        })
      },
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    servers.push(server)
    return { port: (server.server.address() as AddressInfo).port, mails }
  }
}

/** The header block of a message, unfolded: one entry per header. */
const headersOf = (mail: string) =>
  mail
    .split(/\r\n\r\n/)[0]!
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')

/** The text body of a message: after the headers, quoted-printable decoded. */
function bodyOf(mail: string): string {
  const qp = mail.slice(mail.indexOf('\r\n\r\n') + 4).replace(/=\r\n/g, '')
  const bytes = qp.replace(/=([0-9A-F]{2})/g, (_, h: string) => `%${h}`)
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/g, '%25'))
}

const webhookSecret = 'whsec_escaping_0123456789'
const hostileDataId = '<!channel> <https://evil.example/phish|Open in watchdesk> <@U024BE7LH> <!here> & more'

describe('what a Slack or email alert shows of an event is text, not markup', () => {
  const tempDir = useTempDir('watchdesk-channel-escaping-')
  const startConsole = useTestConsole()
  const recorder = useRecorder()
  const smtp = useSmtpSink()

  it('a Slack alert escapes & < > from the event (no mention, no fake link) and the email quotes it, one line', async () => {
    const slack = await recorder()
    const sink = await smtp()
    const dataDir = tempDir()
    mkdirSync(join(dataDir, 'renderer'))
    writeFileSync(join(dataDir, 'renderer', 'index.html'), '<!doctype html><title>watchdesk</title>')
    writeFileSync(
      join(dataDir, 'overlay.json'),
      JSON.stringify({
        alerts: {
          channels: {
            team: { type: 'slack' },
            mail: {
              type: 'email',
              host: '127.0.0.1',
              port: sink.port,
              from: 'w@example.com',
              to: ['ops@example.com'],
            },
          },
        },
      }),
    )
    const c = await startConsole({
      dataDir,
      configFile: join(dataDir, 'overlay.json'),
      rendererDir: join(dataDir, 'renderer'),
      secrets: createMemoryStore({
        'alert-channel:team': `${slack.url}/services/T000/B000/XXXX`,
        'webhook-secret:wh_1': webhookSecret,
      }),
    })
    const listener = c.backend.services.webhooks.address().url!
    const body = JSON.stringify({
      id: 'evt_esc_1',
      type: 'payout.failed',
      created_at: '2026-11-20T10:15:00Z',
      data: { id: `${hostileDataId}\r\nrule: "all good"` },
    })
    const answer = await fetch(`${listener}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signBody(webhookSecret, body) },
      body,
    })
    expect(answer.status).toBe(200)
    await waitFor(() => slack.received.length === 1 || undefined, 'the Slack alert')
    await waitFor(() => sink.mails.length === 1 || undefined, 'the email alert')

    const text = slack.received[0]!.json.text as string
    expect(text).toContain(
      '&lt;!channel&gt; &lt;https://evil.example/phish|Open in watchdesk&gt; &lt;@U024BE7LH&gt; &lt;!here&gt; &amp; more',
    )
    // The only Slack control sequence left is the console's own link.
    expect(text.match(/<[^>]*>/g)).toEqual([`<${c.url}/#/events/evt_esc_1|Open in watchdesk>`])

    const mail = sink.mails[0]!
    const mailBody = bodyOf(mail)
    // The data id's CR LF is shown, not acted on: no line of the body starts with the fake field.
    expect(mailBody.split('\r\n').filter((l) => l.startsWith('rule:'))).toEqual(['rule: "event.type"'])
    expect(mailBody).toContain('\\u000d\\u000arule: "all good"')
    expect(mailBody).toContain('subject: "event:evt_esc_1"')
  })

  it('an email subject stays one header whatever the alert title holds (no CR/LF header injection)', async () => {
    const sink = await smtp()
    const config = ChannelConfig.parse({
      type: 'email',
      host: '127.0.0.1',
      port: sink.port,
      from: 'w@example.com',
      to: ['ops@example.com'],
    })
    const alert: Alert = {
      t: Date.parse('2026-11-20T10:15:00Z'),
      rule: 'event.type',
      subject: 'event:evt_x\r\nBcc: thief@example.com',
      serviceId: null,
      kind: 'event',
      severity: 'critical',
      incidentId: null,
      durationMs: null,
      title: 'payout.failed\r\nBcc: thief@example.com\r\nX-Injected: yes',
      body: 'evt_x\r\n\r\nall good',
      events: [],
    }
    const sent = await sendAlert('mail', config, alert, {
      push: createPushBus(),
      secret: { value: null, source: 'none', problem: null },
    })
    expect(unwrap(sent)).toContain('accepted by')
    const headers = headersOf(sink.mails[0]!)
    expect(headers.filter((h) => /^(bcc|x-injected):/i.test(h))).toEqual([])
    expect(headers.filter((h) => /^subject:/i.test(h))).toHaveLength(1)
    expect(sink.mails[0]!).not.toMatch(/\r\nall good/)
  })
})
