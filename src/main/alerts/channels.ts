import { createHmac } from 'node:crypto'
import type { ChannelConfig } from '../../shared/alerts/config'
import type { Alert, ChannelInfo } from '../../shared/contract/alerts'
import { maskSecret, maskUrl } from '../../shared/mask'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { redactFromLogs } from '../log'
import type { PushBus } from '../push'
import { accounts } from '../secrets'
import type { SecretStore } from '../secrets'
import { formatDuration } from './duration'
import { plainLine, quoted, slackEscape } from './channel-text'

/** Where a channel's secret lives: keychain account `alert-channel:<name>`, or the environment
 * variable `WATCHDESK_ALERT_CHANNEL_<NAME>` (servers without a keychain), which wins. For webhook
 * and slack the secret is the URL (a webhook may add its signing secret after a space); for email
 * it is the SMTP password. */
export const channelAccount = accounts.alertChannel
export const channelEnvName = (name: string) =>
  `WATCHDESK_ALERT_CHANNEL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`

export interface ChannelSecret {
  value: string | null
  source: 'keychain' | 'environment' | 'missing' | 'none'
  problem: string | null
}

export async function readChannelSecret(
  name: string,
  config: ChannelConfig,
  secrets: SecretStore,
  env: NodeJS.ProcessEnv,
): Promise<ChannelSecret> {
  if (config.type === 'desktop') return { value: null, source: 'none', problem: null }
  const fromEnv = env[channelEnvName(name)]?.trim()
  if (fromEnv) {
    redactFromLogs(fromEnv)
    return { value: fromEnv, source: 'environment', problem: null }
  }
  const stored = await secrets.get(channelAccount(name))
  if (!stored.ok) return { value: null, source: 'missing', problem: stored.error.message }
  const value = stored.value?.trim() || null
  if (value) {
    redactFromLogs(value)
    for (const part of value.split(/\s+/)) redactFromLogs(part)
    return { value, source: 'keychain', problem: null }
  }
  if (config.type === 'email' && !config.user) return { value: null, source: 'none', problem: null }
  const what = config.type === 'email' ? 'SMTP password' : `${config.type} URL`
  return {
    value: null,
    source: 'missing',
    problem: `No ${what} for channel "${name}": store it with "watchdesk alerts channel set ${name}" (or in Settings → Alert channels), or set ${channelEnvName(name)}.`,
  }
}

/** What `alerts channel set` and Settings store: for webhook and Slack an http(s) URL (a webhook
 * may add its signing secret after a space), for email the SMTP password. The trimmed value. */
export function checkChannelSecret(name: string, type: ChannelConfig['type'], value: string): Result<string> {
  const text = value.trim()
  if (type === 'desktop')
    return err('bad_request', `The channel "${name}" is a desktop channel: it has no secret to store.`)
  if (!text) return err('bad_request', `Nothing to store for channel "${name}": the value is empty.`)
  if (type === 'email') return ok(text)
  const parts = webhookParts(text)
  if (!parts.ok)
    return err(
      'bad_request',
      `A ${type} channel's secret is its http(s) URL${type === 'webhook' ? ' (optionally followed by a space and a signing secret)' : ''}; what arrived is not one. Nothing was stored.`,
    )
  return ok(text)
}

/** Stores a channel's secret in the keychain (alert-channel:<name>); the value is never logged. */
export async function storeChannelSecret(
  name: string,
  config: ChannelConfig,
  value: string,
  secrets: SecretStore,
): Promise<Result<void>> {
  const checked = checkChannelSecret(name, config.type, value)
  if (!checked.ok) return checked
  redactFromLogs(checked.value)
  for (const part of checked.value.split(/\s+/)) redactFromLogs(part)
  return secrets.set(channelAccount(name), checked.value)
}

function webhookParts(secret: string): Result<{ url: string; signingSecret: string | null }> {
  const [url, signingSecret] = secret.split(/\s+/, 2)
  try {
    const parsed = new URL(url!)
    if (!/^https?:$/.test(parsed.protocol)) throw new Error('not http')
  } catch {
    return err('bad_request', 'The stored channel URL is not an http(s) URL: store it again.')
  }
  return ok({ url: url!, signingSecret: signingSecret ?? null })
}

export function describeChannel(name: string, config: ChannelConfig, secret: ChannelSecret): ChannelInfo {
  let target: string | null = null
  if (config.type === 'desktop') target = 'desktop notification (app tray, or the open browser page)'
  else if (config.type === 'email') target = `${config.to.join(', ')} via ${config.host}:${config.port}`
  else if (secret.value) {
    const parts = webhookParts(secret.value)
    target = parts.ok ? safeMask(parts.value.url) : 'invalid URL'
  }
  return {
    name,
    type: config.type,
    enabled: config.enabled,
    target,
    secret: secret.source,
    problem: secret.problem,
    rules: config.rules ?? null,
  }
}

function safeMask(url: string): string {
  try {
    return maskUrl(url)
  } catch {
    return maskSecret(url)
  }
}

/** One sentence for humans (Slack, email, the desktop). */
export function alertText(alert: Alert): string {
  const lasted = alert.durationMs !== null ? ` (lasted ${formatDuration(alert.durationMs)})` : ''
  return `${alert.body}${lasted}`
}

export interface SendDeps {
  push: PushBus
  /** Never leaves this module except masked. */
  secret: ChannelSecret
  /** Opens the alert's event, chain or incident in the console (never carries the token). */
  link?: string | null
}

/** Sends one alert on one channel. The answer is a short, secret-free detail for the alert log. */
export async function sendAlert(
  name: string,
  config: ChannelConfig,
  alert: Alert,
  deps: SendDeps,
): Promise<Result<string>> {
  if (config.type === 'desktop') {
    deps.push.publish('alerts.alert', alert)
    // The desktop app's shell raises the notification (serve mode is handled by the alerts service).
    return ok('passed to the desktop notifications')
  }
  const link = deps.link ?? null
  if (config.type === 'email') return sendEmail(config, alert, deps.secret.value, link)
  if (!deps.secret.value) return err('unavailable', deps.secret.problem ?? `Channel "${name}" has no URL.`)
  const parts = webhookParts(deps.secret.value)
  if (!parts.ok) return parts
  const { url, signingSecret } = parts.value
  const body =
    config.type === 'slack'
      ? JSON.stringify({
          text: `${icon(alert)} *${slackEscape(alert.title)}*\n${slackEscape(alertText(alert))}${link ? `\n<${link}|Open in watchdesk>` : ''}`,
        })
      : JSON.stringify({ source: 'watchdesk', ...alert, link })
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'watchdesk' }
  if (config.type === 'webhook' && signingSecret)
    headers['x-watchdesk-signature'] =
      `sha256=${createHmac('sha256', signingSecret).update(body).digest('hex')}`
  const masked = safeMask(url)
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(config.timeoutMs),
      redirect: 'manual',
    })
    await response.arrayBuffer().catch(() => undefined)
    if (response.status >= 200 && response.status < 300) return ok(`HTTP ${response.status} from ${masked}`)
    return err('upstream', `${masked} answered HTTP ${response.status}: check the channel's URL.`)
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } }
    const why =
      e.name === 'TimeoutError'
        ? `no answer within ${config.timeoutMs} ms`
        : (e.cause?.code ?? e.cause?.message ?? e.message)
    return err('upstream', `${masked} could not be reached (${String(why).split(url).join(masked)}).`)
  }
}

async function sendEmail(
  config: Extract<ChannelConfig, { type: 'email' }>,
  alert: Alert,
  password: string | null,
  link: string | null,
): Promise<Result<string>> {
  // Loaded for the first email only: the SMTP client is no weight for the app's start.
  const { default: nodemailer } = await import('nodemailer')
  const transport = nodemailer.createTransport({
    host: config.host,
    port: config.port,
    secure: config.secure,
    auth: config.user ? { user: config.user, pass: password ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
  })
  try {
    const info = await transport.sendMail({
      from: config.from,
      to: config.to,
      subject: `[watchdesk] ${plainLine(alert.title)}`,
      text: `${plainLine(alertText(alert))}\n\n${link ? `open: ${link}\n` : ''}rule: ${quoted(alert.rule)}\nsubject: ${quoted(alert.subject)}\nat: ${new Date(alert.t).toISOString()}\n`,
    })
    return ok(`accepted by ${config.host}:${config.port} for ${info.accepted.length} recipient(s)`)
  } catch (error) {
    const message = (error as Error).message.split(password ?? '\u0000').join('…')
    return err(
      'upstream',
      `${config.host}:${config.port} refused the mail (${message}): check the SMTP settings.`,
    )
  } finally {
    transport.close()
  }
}

const icon = (alert: Alert) =>
  alert.kind === 'recovered'
    ? ':large_green_circle:'
    : alert.kind === 'closed'
      ? ':white_circle:'
      : alert.severity === 'critical'
        ? ':red_circle:'
        : ':large_yellow_circle:'
