import 'leaflet/dist/leaflet.css';

import { useQuery } from '@tanstack/react-query';
import L from 'leaflet';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';

import { locationPositionsQueryOptions, mapSettingsQueryOptions, type LocationFilters } from '../api/locations';
import { leafletAttribution, leafletText } from '../lib/leaflet-text';

/** Marker colours by audience (pedestrians, drivers, unknown), readable on light and dark tiles. */
const COLOURS = { pedestrian: '#7c3aed', road: '#ea580c', unknown: '#2563eb' } as const;

/** Where the map opens with no marker: France. */
const HOME: L.LatLngTuple = [46.6, 2.4];

export type LocationsMapProps = {
  filters: LocationFilters;
  /** The locations chosen for a plan: their markers are ringed. */
  selected?: readonly string[];
  /** With it, a button chooses every location the map shows (editors). */
  onSelect?: (ids: string[]) => void;
};

/**
 * The user's positioned locations on a map (Leaflet, the configured raster tiles), filtered like
 * the list; with `onSelect`, the locations it shows can be chosen at once for a campaign plan.
 */
export function LocationsMap({ filters, selected = [], onSelect }: LocationsMapProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const settings = useQuery(mapSettingsQueryOptions());
  const positions = useQuery(locationPositionsQueryOptions(filters));
  const container = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);

  // The map itself, once the tiles are known.
  useEffect(() => {
    if (!settings.data || !container.current) return;
    const created = L.map(container.current, { zoomControl: true, attributionControl: true }).setView(HOME, 5);
    L.tileLayer(settings.data.tiles_url, { maxZoom: settings.data.max_zoom, attribution: leafletAttribution(settings.data.attribution) }).addTo(created);
    layer.current = L.layerGroup().addTo(created);
    map.current = created;
    return () => {
      created.remove();
      map.current = null;
      layer.current = null;
    };
  }, [settings.data]);

  // The markers, whenever the positions change.
  useEffect(() => {
    const group = layer.current;
    if (!group || !map.current || !positions.data) return;
    group.clearLayers();
    const bounds: L.LatLngTuple[] = [];
    for (const p of positions.data.items) {
      const at: L.LatLngTuple = [p.latitude, p.longitude];
      bounds.push(at);
      const chosen = selected.includes(p.id);
      const marker = L.circleMarker(at, {
        radius: chosen ? 10 : 8,
        weight: chosen ? 4 : 2,
        color: chosen ? '#111827' : '#ffffff',
        fillColor: COLOURS[p.audience ?? 'unknown'],
        fillOpacity: 0.95,
      });
      const label = [p.name, p.city, t(`locations.formats.${p.format}`)].filter(Boolean).join(' · ');
      // As a text node: Leaflet sets a string as HTML, and the name is the user's. On the side
      // of the marker with more room, so that a long name stays inside a phone's narrow map.
      marker.bindTooltip(leafletText(label), { direction: 'auto' });
      marker.on('click', () => void navigate(`/locations/${encodeURIComponent(p.id)}`));
      marker.addTo(group);
      // The marker's element carries its name for keyboard and assistive technology users.
      const element = marker.getElement();
      if (element) {
        element.setAttribute('role', 'link');
        element.setAttribute('aria-label', label);
        element.setAttribute('data-testid', 'map-marker');
        if (chosen) element.setAttribute('data-selected', 'true');
      }
    }
    // Without animation: the markers are where they are drawn as soon as the filters change.
    if (bounds.length === 1) map.current.setView(bounds[0], 14, { animate: false });
    else if (bounds.length > 1) map.current.fitBounds(bounds, { padding: [32, 32], maxZoom: 15, animate: false });
  }, [positions.data, navigate, t, settings.data, selected]);

  if (settings.isError || positions.isError) {
    return <QueryError error={settings.error ?? positions.error} onRetry={() => void Promise.all([settings.refetch(), positions.refetch()])} />;
  }
  const count = positions.data?.items.length ?? 0;
  return (
    <div className="locations-map" data-testid="locations-map">
      {settings.isPending || positions.isPending ? <Spinner /> : null}
      <div ref={container} className="locations-map__canvas" role="region" aria-label={t('locations.map.label')} />
      <p className="field__hint" role="status">
        {positions.data?.truncated ? t('locations.map.truncated', { count }) : t('locations.map.count', { count })}{' '}
        {t('locations.map.legend')}
      </p>
      {onSelect && count > 0 ? (
        <Button variant="secondary" size="sm" onClick={() => onSelect(positions.data?.items.map((p) => p.id) ?? [])} data-testid="map-select-all">
          {t('plans.selectShown', { count })}
        </Button>
      ) : null}
    </div>
  );
}
