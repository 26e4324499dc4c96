// The parts of a dashboard address ("/sign-in?next=%2F"), for the router (router.tsx) and for its
// stand-in in the signed-out document (signedOut/router.tsx) alike.

export function pathOf(location: string): string {
  return location.split('?')[0] ?? '/';
}

export function queryOf(location: string): URLSearchParams {
  return new URLSearchParams(location.split('?')[1] ?? '');
}
