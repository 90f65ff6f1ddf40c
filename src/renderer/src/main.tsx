import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { provideBackend } from './api'
import { clientForPage } from './api/client'
import { App } from './App'
import { TokenMissing } from './components/TokenMissing'
import { startPage } from './lifecycle'
import './styles.css'

const client = clientForPage(window)
if (client) {
  provideBackend(client)
  // Owned by the page: it lives as long as the page does and ends with it.
  startPage(client)
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>{client ? <App /> : <TokenMissing />}</StrictMode>,
)
