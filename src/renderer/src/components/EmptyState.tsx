import type { ReactNode } from 'react'

/** What a view shows before there is anything to show: what to configure, and where. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="empty-state" aria-label={title}>
      <h2>{title}</h2>
      <div className="empty-state-body">{children}</div>
    </section>
  )
}
