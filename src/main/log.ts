/** A JSON-lines logger that redacts every secret the process has loaded, so no log line can carry
 * one, whatever a caller passes in. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  child(fields: LogFields): Logger
}

const secretsToRedact = new Set<string>()

/** Registers a secret value: from now on it is replaced by `[redacted]` in every log line. */
export function redactFromLogs(secret: string): void {
  if (secret.length >= 6) secretsToRedact.add(secret)
}

export function redact(text: string): string {
  let out = text
  for (const secret of secretsToRedact) out = out.split(secret).join('[redacted]')
  return out
}

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export function createLogger(
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
  minLevel: LogLevel = (process.env.WATCHDESK_LOG_LEVEL as LogLevel | undefined) ?? 'info',
  base: LogFields = {},
): Logger {
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (levelRank[level] < levelRank[minLevel]) return
    const record = { t: new Date().toISOString(), level, msg, ...base, ...fields }
    write(redact(JSON.stringify(record, errorReplacer)))
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(write, minLevel, { ...base, ...fields }),
  }
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack }
  return value
}

export const silentLogger: Logger = createLogger(() => {}, 'error')
