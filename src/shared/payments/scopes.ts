/** The scope table of spec 5.1: a key is limited to the scopes it was created with. */
export const scopes = {
  'cards:read': 'List and retrieve cards',
  'cards:write': 'Issue cards',
  'wallets:read': 'List and retrieve wallets',
  'wallets:write': 'Create wallets',
  'funding:read': 'List funding transactions',
  'funding:write': 'Create funding requests',
  'payouts:read': 'List payout transactions',
  'payouts:write': 'Create payouts',
  'payees:read': 'List registered payees',
  'payees:write': 'Register payees',
  'bank_accounts:read': 'List linked bank accounts',
  'bank_accounts:write': 'Create link tokens to connect bank accounts',
  'ledger:read': 'Query ledger entries',
  'webhooks:read': 'List webhook endpoints',
  'webhooks:write': 'Create and delete webhook endpoints',
} as const
export type Scope = keyof typeof scopes

export const isScope = (s: string): s is Scope => Object.hasOwn(scopes, s)

/** The operations watchdesk performs and the scope each needs (spec 4.1). */
export const operations = {
  'wallets.list': { scope: 'wallets:read', summary: 'list wallets' },
  'webhooks.create': { scope: 'webhooks:write', summary: 'create a webhook endpoint' },
  'webhooks.list': { scope: 'webhooks:read', summary: 'list webhook endpoints' },
  'webhooks.delete': { scope: 'webhooks:write', summary: 'delete a webhook endpoint' },
} as const satisfies Record<string, { scope: Scope; summary: string }>
export type Operation = keyof typeof operations
