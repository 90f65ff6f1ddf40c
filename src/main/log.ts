import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'

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
  /** The file the lines also go to (the desktop app's log), null when they go to stderr only. */
  readonly file: string | null
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

/** How a line is written: `json` (machine logs, the default), `text` (one line with its fields,
 * `--verbose` on a terminal) or `short` (the message alone, each message once: what an operator
 * at a terminal needs to see beside the command's own sentence). */
export type LogFormat = 'json' | 'text' | 'short'

export function createLogger(
  write: (line: string) => void = writeStderr,
  minLevel: LogLevel = (process.env.WATCHDESK_LOG_LEVEL as LogLevel | undefined) ?? 'info',
  base: LogFields = {},
  file: string | null = null,
  format: LogFormat = 'json',
  seen: Set<string> = new Set(),
): Logger {
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (levelRank[level] < levelRank[minLevel]) return
    const record = { t: new Date().toISOString(), level, msg, ...base, ...fields }
    if (format === 'json') return write(redact(JSON.stringify(record, errorReplacer)))
    if (format === 'text') return write(redact(textLine(record)))
    // A retried request warns at every attempt: the operator reads it once.
    if (seen.has(msg)) return
    seen.add(msg)
    write(redact(`watchdesk: ${level === 'warn' ? 'warning' : level}: ${msg}`))
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(write, minLevel, { ...base, ...fields }, file, format, seen),
    file,
  }
}

/** `2026-11-25T12:03:04.000Z warn msg key=value …` (values as JSON when not plain words). */
function textLine(record: Record<string, unknown>): string {
  const { t, level, msg, ...fields } = record
  const pairs = Object.entries(fields).map(([k, v]) => {
    const text = typeof v === 'string' && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v, errorReplacer)
    return `${k}=${text}`
  })
  return [String(t), level, msg, ...pairs].join(' ')
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack }
  return value
}

export const silentLogger: Logger = createLogger(() => {}, 'error')

let stderrGuarded = false
let stderrGone = false

/** A GUI-launched app inherits a stderr that may be a pipe to a terminal closed long ago: a write
 * to it fails with EPIPE, and an 'error' event nobody listens to becomes an uncaught exception
 * (Electron shows it as an error dialog). From here on, such failures only stop stderr logging. */
export function guardStderr(stream: NodeJS.WriteStream = process.stderr): void {
  if (stderrGuarded) return
  stderrGuarded = true
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED' || error.code === 'EIO')
      stderrGone = true
  })
}

function writeStderr(line: string): void {
  if (stderrGone) return
  try {
    process.stderr.write(line + '\n')
  } catch {
    stderrGone = true
  }
}

/** The desktop app's log file: `watchdesk.log` in the data dir, 0600, JSON lines. When it passes
 * maxBytes it becomes `watchdesk.log.1` (the older ones move up, the oldest beyond `keep` goes). */
export const logFileName = 'watchdesk.log'

export interface LogFile {
  path: string
  write(line: string): void
  close(): void
}

export function openLogFile(dataDir: string, options: { maxBytes?: number; keep?: number } = {}): LogFile {
  const { maxBytes = 5 * 1024 * 1024, keep = 3 } = options
  const path = join(dataDir, logFileName)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  let fd = -1
  let size = 0
  const open = () => {
    fd = openSync(path, 'a', 0o600)
    // An existing file keeps the mode it had: make it private whatever it was.
    fchmodSync(fd, 0o600)
    size = fstatSync(fd).size
  }
  const rotate = () => {
    closeSync(fd)
    fd = -1
    for (let n = keep - 1; n >= 0; n--) {
      try {
        renameSync(n === 0 ? path : `${path}.${n}`, `${path}.${n + 1}`)
      } catch {
        // that generation does not exist yet
      }
    }
    open()
  }
  open()
  return {
    path,
    write(line) {
      if (fd < 0) return
      try {
        const bytes = Buffer.from(line + '\n')
        if (size > 0 && size + bytes.length > maxBytes) rotate()
        size += writeSync(fd, bytes)
      } catch (error) {
        // A full disk or a removed data dir must not take the app down; stderr still has the line.
        writeStderr(
          JSON.stringify({ level: 'warn', msg: `could not write ${path}: ${(error as Error).message}` }),
        )
      }
    },
    close() {
      if (fd >= 0) closeSync(fd)
      fd = -1
    },
  }
}

/** The desktop app's logger: every line to the file and to stderr (while stderr is there). */
export function createFileLogger(file: LogFile, minLevel?: LogLevel): Logger {
  return createLogger(
    (line) => {
      file.write(line)
      writeStderr(line)
    },
    minLevel,
    {},
    file.path,
  )
}
