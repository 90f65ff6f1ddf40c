// keytar as the built shell imports it, held at a gate the driver opens: the OS keychain as it
// behaves when it waits for the user to unlock it. Each call then goes to the real keytar.
import { createRequire } from 'node:module'
import { join } from 'node:path'

// By path: the bare 'keytar' resolves to this very module.
const real = createRequire(import.meta.url)(join(process.env.STANDIN_APP_ROOT, 'node_modules', 'keytar'))
const gate = (globalThis.keytarGate ??= { ...Promise.withResolvers(), waiting: 0 })
const held =
  (name) =>
  async (...args) => {
    gate.waiting++
    await gate.promise
    return real[name](...args)
  }

export const getPassword = held('getPassword')
export const setPassword = held('setPassword')
export const deletePassword = held('deletePassword')
export const findCredentials = held('findCredentials')
export const findPassword = held('findPassword')
export default { getPassword, setPassword, deletePassword, findCredentials, findPassword }
