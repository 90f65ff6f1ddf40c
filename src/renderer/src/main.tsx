import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { api } from './api/client'
import { App } from './App'
import { TokenMissing } from './components/TokenMissing'
import './styles.css'

createRoot(document.getElementById('root')!).render(
  <StrictMode>{api ? <App /> : <TokenMissing />}</StrictMode>,
)
