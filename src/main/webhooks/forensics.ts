import { createHmac, timingSafeEqual } from 'node:crypto'
import type { SecretsCache } from './secrets-cache'

/** A secret the rejected signature may have been made with, and what it means if it was. */
export interface CandidateSecret {
  kind: 'current' | 'other-endpoint' | 'retired'
  endpoint: string
  secret: Buffer
  /** For a retired secret: when this console stopped using it (epoch ms). */
  retiredAt?: number
}

/** What made the HMAC match: said to the operator as the rejection's reason, with the fix. */
export interface Diagnosis {
  cause: string
  reason: string
}

/** Bounds on one diagnosis: bodies hashed at most this many bytes in all (a 1 MiB body gets a few
 * tries, a webhook-sized one all of them), so a flood of bad signatures costs little CPU. */
export const forensicsLimits = { maxHashedBytes: 4 * 1024 * 1024, maxCandidates: 16 }

const nonMatch = 'signature does not match'
const verifyRaw = 'verify the raw bytes exactly as received'

/** The digest forms a proxy or SDK may have turned the service's lowercase hex into. */
function digestForms(header: string): { form: 'hex' | 'base64' | 'prefixed'; digest: Buffer }[] {
  const text = header.trim()
  const forms: { form: 'hex' | 'base64' | 'prefixed'; digest: Buffer }[] = []
  if (/^[0-9a-fA-F]{64}$/.test(text)) forms.push({ form: 'hex', digest: Buffer.from(text, 'hex') })
  const prefixed = /^sha256=([0-9a-fA-F]{64})$/.exec(text)
  if (prefixed) forms.push({ form: 'prefixed', digest: Buffer.from(prefixed[1]!, 'hex') })
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const digest = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    if (digest.length === 32) forms.push({ form: 'base64', digest })
  }
  return forms
}

interface BodyVariant {
  body: Buffer
  cause: string
  reason: string
}

/** Bodies the service may have signed, given what arrived: each undoes one known transformation. */
function* bodyVariants(received: Buffer): Generator<BodyVariant> {
  const newline = /\r?\n+$/.exec(received.toString('latin1'))
  if (newline) {
    yield {
      body: received.subarray(0, received.length - newline[0].length),
      cause: 'trailing-newline-added',
      reason: `a trailing newline was added to the body after signing — something between the service and this listener (a proxy, a framework's body parser, a logging middleware) appends it; ${verifyRaw}`,
    }
  } else {
    yield {
      body: Buffer.concat([received, Buffer.from('\n')]),
      cause: 'trailing-newline-removed',
      reason: `the body's trailing newline was removed after signing — something between the service and this listener trims bodies; ${verifyRaw}`,
    }
  }
  const bom = Buffer.from([0xef, 0xbb, 0xbf])
  if (received.subarray(0, 3).equals(bom)) {
    yield {
      body: received.subarray(3),
      cause: 'bom-added',
      reason: `a byte-order mark (BOM) was put before the body after signing — something between the service and this listener re-encodes text; ${verifyRaw}`,
    }
  }
  yield* charsetVariants(received)
  yield* reserializedVariants(received)
}

function* charsetVariants(received: Buffer): Generator<BodyVariant> {
  if (!received.some((byte) => byte >= 0x80)) return
  const reason = `the body's text was re-encoded (UTF-8 ↔ Latin-1) after signing — something between the service and this listener changes the charset; ${verifyRaw}`
  // Signed as UTF-8 and re-encoded to Latin-1 on the way: those bytes, read as Latin-1, are the text.
  yield { body: Buffer.from(received.toString('latin1'), 'utf8'), cause: 'charset', reason }
  // Signed as UTF-8, read as Latin-1 and written back as UTF-8 (mojibake: "Ã©" for "é").
  const text = received.toString('utf8')
  if ([...text].every((c) => c.charCodeAt(0) <= 0xff))
    yield { body: Buffer.from(text, 'latin1'), cause: 'charset', reason }
}

const escapeSlashes = (json: string) => json.replace(/\//g, '\\/')
const escapeUnicode = (json: string) =>
  json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

function* reserializedVariants(received: Buffer): Generator<BodyVariant> {
  let parsed: unknown
  try {
    parsed = JSON.parse(received.toString('utf8'))
  } catch {
    return
  }
  const layouts = [JSON.stringify(parsed), JSON.stringify(parsed, null, 2), JSON.stringify(parsed, null, 4)]
  const seen = new Set<string>([received.toString('utf8')])
  for (const layout of layouts) {
    for (const text of [
      layout,
      escapeSlashes(layout),
      escapeUnicode(layout),
      escapeUnicode(escapeSlashes(layout)),
    ]) {
      if (seen.has(text)) continue
      seen.add(text)
      yield {
        body: Buffer.from(text, 'utf8'),
        cause: 'reserialized',
        reason: `the body was re-serialized after signing (whitespace, key order or escaping changed) — something between the service and this listener parses and re-writes JSON (a body parser, an API gateway); ${verifyRaw}`,
      }
    }
  }
}

const hmac = (secret: Buffer, body: Buffer) => createHmac('sha256', secret).update(body).digest()

function secretReason(candidate: CandidateSecret, sentTo: string | null, now: number): Diagnosis | null {
  if (candidate.kind === 'retired') {
    const ago = candidate.retiredAt === undefined ? '' : ` (retired ${minutesAgo(now - candidate.retiredAt)})`
    return {
      cause: 'retired-secret',
      reason: `${nonMatch}: it was signed with the secret this console held before for endpoint ${candidate.endpoint}${ago} — the service still signs with the old secret: check which secret endpoint ${candidate.endpoint} has (\`watchdesk webhooks list\`) and store the current one (Settings → Webhook endpoints, or \`watchdesk webhooks create\`)`,
    }
  }
  if (candidate.kind === 'other-endpoint') {
    const where = sentTo ? `/webhooks/${sentTo}` : '/webhooks'
    return {
      cause: 'other-endpoint-secret',
      reason: `${nonMatch} for ${where}: it was signed with endpoint ${candidate.endpoint}'s secret — the URL registered for ${candidate.endpoint} points at another endpoint's path: register ${candidate.endpoint} with /webhooks/${candidate.endpoint} (or /webhooks)`,
    }
  }
  return null
}

function minutesAgo(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000))
  if (minutes < 120) return `${minutes} min ago`
  return `${Math.round(minutes / 60)} h ago`
}

/** Finds the one known transformation that makes a rejected signature match, and says it in words
 * with the fix; null when none does (an unrelated secret, a forged or broken signature). The
 * delivery stays refused whatever this finds: it explains, it never accepts. */
export function diagnoseSignature(
  body: Buffer,
  header: string,
  candidates: readonly CandidateSecret[],
  sentTo: string | null,
  now = Date.now(),
): Diagnosis | null {
  const forms = digestForms(header)
  candidates = candidates.slice(0, forensicsLimits.maxCandidates)
  if (forms.length === 0 || candidates.length === 0) return null
  let budget = forensicsLimits.maxHashedBytes
  const matches = (secret: Buffer, signed: Buffer): 'hex' | 'base64' | 'prefixed' | null => {
    budget -= signed.length
    const expected = hmac(secret, signed)
    return forms.find((f) => timingSafeEqual(expected, f.digest))?.form ?? null
  }
  // The body as received, with secrets other than the endpoint's own or a digest in another form.
  for (const candidate of candidates) {
    const form = matches(candidate.secret, body)
    if (form === null) continue
    const secretCause = secretReason(candidate, sentTo, now)
    if (secretCause) return secretCause
    if (form !== 'hex') return digestReason(form)
  }
  for (const variant of bodyVariants(body)) {
    for (const candidate of candidates) {
      if (budget < variant.body.length) return null
      if (matches(candidate.secret, variant.body) === null) continue
      return { cause: variant.cause, reason: `${nonMatch}: ${variant.reason}` }
    }
  }
  return null
}

function digestReason(form: 'base64' | 'prefixed'): Diagnosis {
  const sent = form === 'base64' ? 'as base64' : 'with a "sha256=" prefix'
  return {
    cause: `digest-${form}`,
    reason: `${nonMatch} as sent: the digest arrived ${sent}, while the service signs in lowercase hex (spec 6.2) — something between the service and this listener re-encodes the X-Service-Signature header; pass it through unchanged`,
  }
}

/** At most `perSecond` diagnoses a second (a burst of `burst`): beyond it a rejection keeps the plain
 * reason, so a flood of bad signatures cannot buy CPU. */
export class DiagnosisBudget {
  private tokens: number
  private at: number

  constructor(
    private readonly perSecond = 2,
    private readonly burst = 10,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst
    this.at = now()
  }

  take(): boolean {
    const t = this.now()
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.at) / 1000) * this.perSecond)
    this.at = t
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
}

/** The reason a refused delivery is recorded with: the plain check's reason, or the diagnosis when
 * one transformation explains the signature (within the budget). */
export function explainRejection(
  why: string,
  body: Buffer,
  header: string | string[] | undefined,
  secrets: SecretsCache,
  endpoint: string | null,
  budget: DiagnosisBudget,
): string | null {
  if (why !== 'signature does not match' && why !== 'malformed signature') return null
  const text = Array.isArray(header) ? header[0] : header
  if (!text || !budget.take()) return null
  return diagnoseSignature(body, text, candidatesFor(secrets, endpoint), endpoint)?.reason ?? null
}

function candidatesFor(secrets: SecretsCache, endpoint: string | null): CandidateSecret[] {
  const current = endpoint ? secrets.only(endpoint) : secrets.all()
  const candidates: CandidateSecret[] = [...current].map(([id, secret]) => ({
    kind: 'current',
    endpoint: id,
    secret,
  }))
  if (endpoint)
    for (const [id, secret] of secrets.all())
      if (id !== endpoint) candidates.push({ kind: 'other-endpoint', endpoint: id, secret })
  for (const old of secrets.retired())
    candidates.push({ kind: 'retired', endpoint: old.endpoint, secret: old.secret, retiredAt: old.retiredAt })
  return candidates
}
