import { readFileSync } from 'node:fs'
import { rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ClockStatus } from '../../shared/contract/clock'

/** The clock status as the console last published it, for readers in other processes (`watchdesk
 * mcp`): one writer (the console's clock guard), written whole and renamed into place, one write at a time. */
export const clockStatusFileName = 'clock-status.json'

export async function writeClockStatus(dataDir: string, status: ClockStatus): Promise<void> {
  // Asynchronous and without fsync: a derived status, rewritten on the next change, must never
  // hold up the event loop that answers polls and deliveries (a loaded disk takes seconds).
  const file = join(dataDir, clockStatusFileName)
  const temp = `${file}.${process.pid}.tmp`
  await writeFile(temp, JSON.stringify(status) + '\n', { mode: 0o600 })
  await rename(temp, file)
}

/** Null when no console has written one (or it is unreadable). */
export function readClockStatus(dataDir: string): ClockStatus | null {
  try {
    const parsed = ClockStatus.safeParse(JSON.parse(readFileSync(join(dataDir, clockStatusFileName), 'utf8')))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}
