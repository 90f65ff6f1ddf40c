/** The configuration: where the data dir is, what config.json holds, and its one writer. */
export { configFileName, deepMerge, defaultDataDir, loadConfig, resolveDataDir, revisionOf } from './load'
export type { LoadedConfig } from './load'
export { listenerRestartKeys, openConfigStore } from './store'
export type { ConfigChangeOrigin, ConfigMutation, ConfigStore, ConfigStoreOptions } from './store'
export { parseValue, splitKey } from './dotted'
export { readRuntimeInfo, removeRuntimeInfo, runtimeFileName, writeRuntimeInfo } from './runtime'
export type { RuntimeInfo } from './runtime'
