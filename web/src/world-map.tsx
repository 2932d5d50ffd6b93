// The countries breakdown on a world map, drawn from an offline file bundled with the dashboard
// (world-atlas: Natural Earth's 1:110m countries as TopoJSON, ISC). Loaded on demand: the map's data
// is a chunk of its own, fetched the first time a page shows statistics with clicks.
import type { Breakdown } from './api'
import { feature } from 'topojson-client'
import type { GeometryCollection, Topology } from 'topojson-specification'
import type { Feature, MultiPolygon, Polygon, Position } from 'geojson'
import atlas from 'world-atlas/countries-110m.json'
// ISO 3166-1 [alpha-2, alpha-3, numeric, …] rows (i18n-iso-countries, MIT): world-atlas names
// countries by their numeric code, the statistics by their alpha-2 code.
import codes from 'i18n-iso-countries/codes.json'
import { countryName } from './analytics'

const ALPHA2_OF_NUMERIC = new Map((codes as string[][]).map((row) => [row[2]!, row[0]!]))
/** Mapped without a numeric code in the atlas (Kosovo's code is user-assigned). */
const ALPHA2_OF_NAME: Record<string, string> = { Kosovo: 'XK' }

// An equirectangular projection, cut to 84°N…58°S (Antarctica is left out: no one is counted there).
const TOP = 84
const BOTTOM = -58
const WIDTH = 360
const HEIGHT = TOP - BOTTOM
const point = (lon: number, lat: number) => `${(lon + 180).toFixed(1)},${(TOP - Math.max(BOTTOM - 2, lat)).toFixed(1)}`
/**
 * A ring as path data. A ring that crosses the antimeridian (Russia's east, Fiji) jumps from 180° to
 * -180°: it is unwrapped into one continuous shape, then drawn again a world to the side, so that
 * each half shows at its edge of the map (the viewBox cuts the rest).
 */
function ring(r: Position[]): string {
  const lons: number[] = []
  for (const [lon] of r) {
    const previous = lons.at(-1)
    let l = lon!
    if (previous !== undefined) while (l - previous > 180) l -= 360
    if (previous !== undefined) while (previous - l > 180) l += 360
    lons.push(l)
  }
  const draw = (shift: number) => `M${r.map(([, lat], i) => point(lons[i]! + shift, lat!)).join('L')}Z`
  const min = Math.min(...lons)
  const max = Math.max(...lons)
  return draw(0) + (min < -180 ? draw(360) : '') + (max > 180 ? draw(-360) : '')
}

interface Country {
  code: string
  name: string
  d: string
}

let shapes: Country[] | null = null
/** Every country's outline as SVG path data, computed once. */
function countries(): Country[] {
  if (shapes) return shapes
  const topology = atlas as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>
  const collection = feature(topology, topology.objects.countries)
  shapes = collection.features
    .filter(
      (f): f is Feature<Polygon | MultiPolygon, { name: string }> => f.id !== '010' && (f.geometry.type === 'Polygon' || f.geometry.type === 'MultiPolygon'),
    )
    .map((f) => {
      const polygons = f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates
      const code = (f.id !== undefined ? ALPHA2_OF_NUMERIC.get(String(f.id)) : undefined) ?? ALPHA2_OF_NAME[f.properties.name] ?? ''
      return { code, name: f.properties.name, d: polygons.map((p) => p.map(ring).join('')).join('') }
    })
  return shapes
}

/** Five shades, by the share of the busiest country (a class each: no inline style under the page's CSP). */
const shade = (clicks: number, max: number) => (clicks <= 0 ? 0 : Math.min(5, 1 + Math.floor((clicks / max) * 4.999)))

export default function WorldMap({ rows, picked }: { rows: Breakdown[]; picked: string | null }) {
  const clicks = new Map(rows.map((r) => [r.value, r.clicks]))
  const max = Math.max(1, ...rows.filter((r) => /^[A-Z]{2}$/.test(r.value)).map((r) => r.clicks))
  return (
    <svg class="world-map" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Human clicks by country on a world map">
      {countries().map((c) => {
        const n = clicks.get(c.code) ?? 0
        return (
          <path
            key={c.name}
            d={c.d}
            class={`shade-${shade(n, max)}${picked !== null && picked === c.code ? ' picked' : ''}`}
            data-country={c.code || undefined}
          >
            <title>{`${c.code ? countryName(c.code) : c.name}: ${n} ${n === 1 ? 'click' : 'clicks'}`}</title>
          </path>
        )
      })}
    </svg>
  )
}
