import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Database } from '../../../src/main/db'

/** A small tmpfs to fill up (root only); null with the reason when it cannot be mounted here. */
export function mountTmpfs(sizeKb: number): { dir: string; unmount(): void } | { dir: null; reason: string } {
  const dir = mkdtempSync(join(tmpdir(), 'watchdesk-tmpfs-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0755`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    return { dir: null, reason: `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})` }
  }
  return {
    dir,
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/** Writes `file` until the disk refuses another byte; returns the bytes written. */
export function fillDisk(file: string): number {
  const fd = openSync(file, 'a')
  let written = 0
  try {
    for (const size of [65536, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 120)
      for (;;) {
        try {
          written += writeSync(fd, chunk)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break
          throw error
        }
      }
    }
  } finally {
    closeSync(fd)
  }
  return written
}

/** Writes to the database until it refuses one: the disk is full and the WAL can take no more. */
export function exhaustDatabase(db: Database): void {
  const padding = 'x'.repeat(16_384)
  for (let i = 0; ; i++) {
    try {
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(`padding_${i}`, padding)
    } catch {
      return
    }
  }
}
