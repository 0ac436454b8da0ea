//! When the heatmaps list shows its search and order.

/**
 * Whether the toolbar shows: not over an empty library, where there is nothing to search or sort,
 * nor while the first page loads (it comes with the list rather than flashing over an empty
 * one); always with a search, typed or shown, so that it can be cleared; and while another search
 * or order loads over the previous answer (`placeholder`), so the field or menu in use stays put.
 */
export function showsHeatmapToolbar({
  searching,
  loaded,
  placeholder,
  count,
}: {
  searching: boolean;
  loaded: boolean;
  placeholder: boolean;
  count: number;
}): boolean {
  return searching || (loaded && (placeholder || count > 0));
}
