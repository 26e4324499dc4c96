import { Link } from '../router';
import { sectionPath } from './sections';

/** Shown on a site just created: the next step is putting it on a page (the Install section). */
export function InstallOffer({ siteId }: { siteId: string }) {
  return (
    <section className="card install-offer" aria-labelledby="install-offer-title">
      <div className="card-header">
        <div>
          <h3 id="install-offer-title">Next: put the site on your pages</h3>
          <p>One line in your pages loads its configuration and keeps it current. Set it up now, or whenever you are ready: it is under Install.</p>
        </div>
        <Link to={sectionPath(siteId, 'install')} className="button button-primary">
          Show the install snippet
        </Link>
      </div>
    </section>
  );
}
