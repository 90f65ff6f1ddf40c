// @vitest-environment happy-dom
import { createElement } from 'react'
import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { StorageStatus } from '../../src/renderer/src/components/StorageStatus'
import type { StorageStatus as Storage } from '../../src/shared/contract/storage'

const full: Storage = {
  state: 'full',
  file: '/data/watchdesk.db',
  cause: 'Disk full at /data: 0 B free.',
  fix: 'Free space on that disk, or move the data dir (--data-dir).',
  code: 'SQLITE_FULL',
  since: 1,
  lastOkAt: null,
  failures: 3,
}

describe('the storage status in the UI', () => {
  afterEach(cleanup)

  it('is a red badge naming the fault, with the cause and the fix as its title', () => {
    const { container } = render(createElement(StorageStatus, { status: full }))
    const badge = container.querySelector('.status')!
    expect(badge.className).toBe('status status-bad')
    expect(badge.textContent).toBe('storage: disk full')
    expect(badge.getAttribute('title')).toBe(`${full.cause} ${full.fix}`)
  })

  it('is an alert banner in the listener strip', () => {
    const { getByRole } = render(createElement(StorageStatus, { status: full, banner: true }))
    expect(getByRole('alert').textContent).toBe(
      `The database cannot commit, so webhooks are answered 503 until it can. ${full.cause} ${full.fix}`,
    )
  })

  it('shows nothing while the database commits', () => {
    const { container } = render(
      createElement(StorageStatus, { status: { ...full, state: 'ok', cause: null, fix: null, code: null } }),
    )
    expect(container.innerHTML).toBe('')
  })
})
