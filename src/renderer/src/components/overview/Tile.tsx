import type { ReactNode } from 'react'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'

/** One tile of the Overview: a title that links to the view where the thing is managed, its state
 * in words and colour, and a few facts. The whole title is the link, so a glance becomes a click. */
export function Tile({
  title,
  href,
  linkLabel,
  tone,
  label,
  children,
  name,
}: {
  title: string
  href: string
  /** "open Alerts": says where the link goes. */
  linkLabel: string
  tone: Tone
  label: string
  children: ReactNode
  /** For tests and assistive tech: the tile's accessible name (defaults to the title). */
  name?: string
}) {
  return (
    <section className={`panel tile tile-${tone}`} aria-label={name ?? title}>
      <div className="tile-head">
        <h2>
          <a href={href} title={linkLabel}>
            {title}
          </a>
        </h2>
        <StatusBadge tone={tone} label={label} />
      </div>
      <div className="tile-body">{children}</div>
    </section>
  )
}

/** A fact line of a tile: a dim label, then the value (never truncated: it wraps). */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="tile-fact">
      <span className="tile-fact-label">{label}</span> <span className="tile-fact-value">{children}</span>
    </div>
  )
}
