import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, client } from '../api'
import { asyncHandler, confirmed, ErrorBox } from '../ui'
import './qr-logo.css'

/** The workspace's logo as the QR card knows it: its type (an SVG goes on SVG codes only) and an object URL, new with each upload. */
export interface WorkspaceLogo {
  readonly type: 'image/png' | 'image/svg+xml'
  readonly url: string
}

const LOGO_TYPES = ['image/png', 'image/svg+xml']
const LOGO_KB = 100

/**
 * The logo part of the QR card: "With logo" when the workspace has one, and for those allowed to
 * change it (domains:write) an upload, replace and remove. `onLogo` tells the card what is there now
 * (each upload a new object URL, which the card's preview follows).
 */
export function QrLogo(props: {
  logo: WorkspaceLogo | null
  onLogo: (logo: WorkspaceLogo | null) => void
  withLogo: boolean
  onToggle: (on: boolean) => void
  canEdit: boolean
}) {
  const { logo, onLogo } = props
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  const load = async () => {
    try {
      const blob = await call(client.GET('/v1/workspace/logo', { parseAs: 'blob' }))
      onLogo({ type: blob.type as WorkspaceLogo['type'], url: URL.createObjectURL(blob) })
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) onLogo(null)
      else setError(e)
    }
  }
  useEffect(() => void load(), [])
  useEffect(() => () => (logo ? URL.revokeObjectURL(logo.url) : undefined), [logo])

  const upload = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement
    const file = input.files?.[0]
    input.value = ''
    if (!file) return
    setError(null)
    if (!LOGO_TYPES.includes(file.type)) return setError(new ApiError(415, 'unsupported_media_type', 'choose a PNG or SVG image', null))
    if (file.size > LOGO_KB * 1024) return setError(new ApiError(413, 'payload_too_large', `the logo must be at most ${LOGO_KB} KB`, null))
    setBusy(true)
    try {
      // The body is the file itself, not JSON.
      await call(client.PUT('/v1/workspace/logo', { body: file as unknown as string, bodySerializer: (body) => body, headers: { 'Content-Type': file.type } }))
      await load()
      props.onToggle(true)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const remove = async () => {
    if (!confirmed('Remove the workspace logo? Codes with the logo can then no longer be made.')) return
    setBusy(true)
    setError(null)
    try {
      await call(client.DELETE('/v1/workspace/logo'))
      onLogo(null)
      props.onToggle(false)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  return (
    <div class="qr-logo" data-testid="qr-logo">
      {logo ? (
        <label class="inline-check">
          <input type="checkbox" name="logo" checked={props.withLogo} onChange={(e) => props.onToggle((e.currentTarget as HTMLInputElement).checked)} /> With
          logo
          <img src={logo.url} alt="The workspace logo" class="qr-logo-thumb" />
        </label>
      ) : (
        <p class="hint">{props.canEdit ? 'Add a logo to place it in the centre of your codes.' : 'No workspace logo yet (an admin can add one).'}</p>
      )}
      {props.canEdit ? (
        <div class="qr-logo-actions">
          <label class={`qr-logo-upload${busy ? ' busy' : ''}`}>
            {logo ? 'Replace logo' : 'Upload logo'}
            <input type="file" name="logo-file" accept={LOGO_TYPES.join(',')} disabled={busy} onChange={asyncHandler(upload)} />
          </label>
          {logo ? (
            <button type="button" class="link" disabled={busy} onClick={asyncHandler(remove)}>
              Remove logo
            </button>
          ) : null}
          <span class="hint">PNG or SVG, up to {LOGO_KB} KB; for the whole workspace</span>
        </div>
      ) : null}
      {logo?.type === 'image/svg+xml' && props.withLogo ? <p class="hint">An SVG logo goes on SVG codes only.</p> : null}
      <ErrorBox error={error} />
    </div>
  )
}
