import { useEffect, useState } from 'react'
import type { MethodName, PushPayload, PushTopic, RequestOf, ResponseOf } from '../../../shared/contract'
import { backend } from '.'

/** The push topics whose payload is a `V`: what can keep a method's answer current. */
type TopicFor<V> = { [T in PushTopic]: PushPayload<T> extends V ? T : never }[PushTopic]

/** A value the back end answers once (`method`, asked without arguments) and then pushes on every
 * change (`topic`): asked at mount, followed until unmount; null until the first answer. With
 * `enabled` false nothing is asked (a parent already has the value). */
export function usePushedValue<K extends MethodName>(
  method: K,
  topic: TopicFor<ResponseOf<K>>,
  enabled = true,
): ResponseOf<K> | null {
  const [value, setValue] = useState<ResponseOf<K> | null>(null)
  useEffect(() => {
    if (!enabled) return
    let live = true
    void backend()
      .call(method, {} as RequestOf<K>)
      .then((answer) => {
        if (live && answer.ok) setValue(answer.value)
      })
    const off = backend().onPush(topic, (payload) => setValue(payload as ResponseOf<K>))
    return () => {
      live = false
      off.dispose()
    }
  }, [method, topic, enabled])
  return value
}
