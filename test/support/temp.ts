import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'

/** A fresh directory per test, removed afterwards (with `{ per: 'file' }`, after the file's last
 * test, for a directory made in `beforeAll`). */
export function useTempDir(
  prefix = 'watchdesk-test-',
  { per = 'test' }: { per?: 'test' | 'file' } = {},
): () => string {
  const dirs: string[] = []
  ;(per === 'test' ? afterEach : afterAll)(() => {
    // Retried: a process a test started may still be finishing a write when its hooks run.
    for (const dir of dirs.splice(0))
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  })
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    dirs.push(dir)
    return dir
  }
}
