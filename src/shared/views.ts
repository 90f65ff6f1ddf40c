/** The console's views, in sidebar order, with the digit that opens each: the renderer's routes,
 * the desktop's Go menu and the notifications that open a view all read this one list. */
export const views = [
  { id: 'overview', label: 'Overview', key: '1' },
  { id: 'events', label: 'Events', key: '2' },
  { id: 'chains', label: 'Chains', key: '3' },
  { id: 'wallets', label: 'Wallets', key: '4' },
  { id: 'alerts', label: 'Alerts', key: '5' },
  { id: 'settings', label: 'Settings', key: '6' },
] as const

export type ViewId = (typeof views)[number]['id']
