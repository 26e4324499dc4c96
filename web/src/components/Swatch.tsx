/** A colour value's sample beside its code, as the form's colour fields show it. */
export function Swatch({ colour }: { colour: string | undefined }) {
  if (colour === undefined) return null;
  return <span className="swatch history-swatch" style={{ backgroundColor: colour }} aria-hidden="true" />;
}
