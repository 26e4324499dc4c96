import { useTitle } from '../useTitle';

export function SiteEditorPage({ siteId }: { siteId: string }) {
  useTitle('Site');
  return <h1>Site {siteId}</h1>;
}
