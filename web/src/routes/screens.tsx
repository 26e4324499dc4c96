// The dashboard's screens: which element each address draws, in which frame.
import type { ReactElement } from 'react';
import { type RouteObject, useParams } from 'react-router';
import { SCREENS, type Screen } from '@server/web/screens';
import { loadOnFirstUse } from '../loadOnFirstUse';
import { SignInPage } from '../pages/SignIn';
import { SitesPage } from '../pages/Sites';

// The first screens anyone sees (sign-in, the sites list) are in the entry script; every other
// screen (the editor with its forms and compiled schemas, settings, workspaces, trash, sign-up)
// loads when first opened. A screen whose code fails to load (a newer version was deployed since
// the page loaded) throws like any failing screen: the error screen offers a reload.
const SignUpPage = loadOnFirstUse(() => import('../pages/SignUp').then((module) => module.SignUpPage));
const SiteEditorPage = loadOnFirstUse(() => import('../pages/SiteEditor').then((module) => module.SiteEditorPage));
const ProfilePage = loadOnFirstUse(() => import('../pages/Profile').then((module) => module.ProfilePage));
const AccessTokensPage = loadOnFirstUse(() => import('../pages/AccessTokens').then((module) => module.AccessTokensPage));
const WorkspacesPage = loadOnFirstUse(() => import('../pages/Workspaces').then((module) => module.WorkspacesPage));
const WorkspaceAuditLogPage = loadOnFirstUse(() => import('../pages/WorkspaceAuditLog').then((module) => module.WorkspaceAuditLogPage));
const WorkspaceWebhooksPage = loadOnFirstUse(() => import('../pages/WorkspaceWebhooks').then((module) => module.WorkspaceWebhooksPage));
const WorkspaceDetailPage = loadOnFirstUse(() => import('../pages/WorkspaceDetail').then((module) => module.WorkspaceDetailPage));
const SecurityPage = loadOnFirstUse(() => import('../pages/Security').then((module) => module.SecurityPage));
const TrashPage = loadOnFirstUse(() => import('../pages/Trash').then((module) => module.TrashPage));
const ChangeRequestPage = loadOnFirstUse(() => import('../pages/ChangeRequest').then((module) => module.ChangeRequestPage));
const AdminPage = loadOnFirstUse(() => import('../pages/Admin').then((module) => module.AdminPage));

// The dashboard's screens are the server's list (src/web/screens.ts), which the server answers
// with index.html (any other path gets status 404, which the catch-all shows as the not-found
// screen). Each screen names its element and the frame it is drawn in; typed by the list, a screen
// added on one side and not the other fails the build.
export type Frame = 'signed-out' | 'signed-in' | 'settings';
const SCREEN_ELEMENTS: Record<Screen, { frame: Frame; element: ReactElement }> = {
  '/sign-in': { frame: 'signed-out', element: <SignInPage /> },
  '/sign-up': { frame: 'signed-out', element: <SignUpPage /> },
  '/': { frame: 'signed-in', element: <SitesPage /> },
  '/sites': { frame: 'signed-in', element: <SitesPage /> },
  '/sites/:id': { frame: 'signed-in', element: <SiteEditorRoute /> },
  '/sites/:id/:section': { frame: 'signed-in', element: <SiteEditorRoute /> },
  '/sites/:id/change-requests/:cr_id': { frame: 'signed-in', element: <ChangeRequestRoute /> },
  '/trash': { frame: 'signed-in', element: <TrashPage /> },
  '/admin': { frame: 'signed-in', element: <AdminPage /> },
  '/settings': { frame: 'settings', element: <ProfilePage /> },
  '/settings/profile': { frame: 'settings', element: <ProfilePage /> },
  '/settings/access-tokens': { frame: 'settings', element: <AccessTokensPage /> },
  '/settings/security': { frame: 'settings', element: <SecurityPage /> },
  '/settings/workspaces': { frame: 'settings', element: <WorkspacesPage /> },
  '/settings/workspaces/:id': { frame: 'settings', element: <WorkspaceDetailRoute /> },
  '/settings/workspaces/:id/audit-log': { frame: 'settings', element: <WorkspaceAuditLogRoute /> },
  '/settings/workspaces/:id/webhooks': { frame: 'settings', element: <WorkspaceWebhooksRoute /> },
};

/** The screens drawn in a frame, as the router's routes. */
export function screensIn(frame: Frame): RouteObject[] {
  return SCREENS.filter((path) => SCREEN_ELEMENTS[path].frame === frame).map((path) => ({ path, element: SCREEN_ELEMENTS[path].element }));
}

/** The editor's sections are one screen (keyed by site): the draft survives moving between them. */
function SiteEditorRoute() {
  const { id = '', section } = useParams();
  const props = { siteId: id, section };
  return <SiteEditorPage {...props} key={id} />;
}

/** A change request's screen, keyed by it: moving to another starts its forms afresh. */
function ChangeRequestRoute() {
  const { id = '', cr_id: crId = '' } = useParams();
  return <ChangeRequestPage siteId={id} changeRequestId={crId} key={`${id}/${crId}`} />;
}

/** One workspace's screen, keyed by it: moving to another starts its forms afresh. */
function WorkspaceDetailRoute() {
  const { id = '' } = useParams();
  return <WorkspaceDetailPage workspaceId={id} key={id} />;
}

function WorkspaceAuditLogRoute() {
  const { id = '' } = useParams();
  return <WorkspaceAuditLogPage workspaceId={id} key={id} />;
}

function WorkspaceWebhooksRoute() {
  const { id = '' } = useParams();
  return <WorkspaceWebhooksPage workspaceId={id} key={id} />;
}

