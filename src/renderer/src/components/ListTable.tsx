import type { ReactNode } from 'react'

/** A settings list: a grid with one row per item, or the hint that says why it is empty and what
 * to do. `headers` are the column names (an empty string for the actions column). */
export function ListTable({
  headers,
  rows,
  empty,
}: {
  headers: { label: string; numeric?: boolean }[]
  rows: ReactNode[]
  empty: ReactNode
}) {
  if (rows.length === 0) return <p className="hint">{empty}</p>
  return (
    <table className="grid">
      <thead>
        <tr>
          {headers.map((h, i) => (
            <th key={i} className={h.numeric ? 'num' : undefined}>
              {h.label || null}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{rows}</tbody>
    </table>
  )
}
