import 'leaflet/dist/leaflet.css';

import { useQuery } from '@tanstack/react-query';
import L from 'leaflet';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';

import { mapSettingsQueryOptions } from '../api/locations';
import { leafletAttribution } from '../lib/leaflet-text';

type PositionPickerProps = {
  latitude: number | null;
  longitude: number | null;
  /** A click on the map: the position, rounded to 6 decimals (about 10 cm). */
  onPick: (latitude: number, longitude: number) => void;
};

/** A small map in the location form: shows the position and takes a click as the new one. */
export function PositionPicker({ latitude, longitude, onPick }: PositionPickerProps) {
  const { t } = useTranslation();
  const settings = useQuery(mapSettingsQueryOptions());
  const container = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const marker = useRef<L.CircleMarker | null>(null);
  const pick = useRef(onPick);
  useEffect(() => {
    pick.current = onPick;
  }, [onPick]);

  useEffect(() => {
    if (!settings.data || !container.current) return;
    const created = L.map(container.current).setView([46.6, 2.4], 5);
    L.tileLayer(settings.data.tiles_url, { maxZoom: settings.data.max_zoom, attribution: leafletAttribution(settings.data.attribution) }).addTo(created);
    created.on('click', (event: L.LeafletMouseEvent) => {
      const round = (value: number) => Math.round(value * 1e6) / 1e6;
      pick.current(round(event.latlng.lat), round(L.Util.wrapNum(event.latlng.lng, [-180, 180], true)));
    });
    map.current = created;
    return () => {
      created.remove();
      map.current = null;
      marker.current = null;
    };
  }, [settings.data]);

  // The marker follows the fields (typed, from the photo's GPS, or clicked).
  const valid = latitude !== null && longitude !== null && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
  useEffect(() => {
    const current = map.current;
    if (!current) return;
    if (!valid) {
      marker.current?.remove();
      marker.current = null;
      return;
    }
    const at: L.LatLngTuple = [latitude, longitude];
    if (marker.current) marker.current.setLatLng(at);
    else marker.current = L.circleMarker(at, { radius: 8, weight: 2, color: '#ffffff', fillColor: '#ea580c', fillOpacity: 0.95 }).addTo(current);
    if (!current.getBounds().contains(at)) current.setView(at, Math.max(current.getZoom(), 15));
  }, [latitude, longitude, valid, settings.data]);

  return (
    <div className="position-picker">
      <div ref={container} className="position-picker__canvas" role="region" aria-label={t('locations.map.picker')} data-testid="position-picker" />
      <p className="field__hint">{t('locations.map.pickerHelp')}</p>
    </div>
  );
}
