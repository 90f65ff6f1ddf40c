import { eventGroups, eventTypes } from '../../../../shared/events'

/** The fifteen event types of spec 6.1, grouped, as checkboxes; a group header toggles its group. */
export function EventPicker({ value, onChange }: { value: string[]; onChange(next: string[]): void }) {
  const toggle = (types: string[], on: boolean) =>
    onChange(on ? [...new Set([...value, ...types])] : value.filter((t) => !types.includes(t)))
  return (
    <div className="event-picker" role="group" aria-label="Event types">
      {eventGroups.map((group) => {
        const types = eventTypes.filter((t) => t.group === group.id).map((t) => t.type)
        const all = types.every((t) => value.includes(t))
        const some = !all && types.some((t) => value.includes(t))
        return (
          <fieldset key={group.id}>
            <legend>
              <label>
                <input
                  type="checkbox"
                  checked={all}
                  ref={(el) => {
                    if (el) el.indeterminate = some
                  }}
                  onChange={(e) => toggle(types, e.target.checked)}
                />{' '}
                {group.label}
              </label>
            </legend>
            {eventTypes
              .filter((t) => t.group === group.id)
              .map((t) => (
                <label key={t.type} title={t.meaning}>
                  <input
                    type="checkbox"
                    checked={value.includes(t.type)}
                    onChange={(e) => toggle([t.type], e.target.checked)}
                  />{' '}
                  <span className="mono">{t.type}</span>
                </label>
              ))}
          </fieldset>
        )
      })}
    </div>
  )
}
