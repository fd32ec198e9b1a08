import { lazy, Suspense, useState, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { MantineProvider, createTheme, localStorageColorSchemeManager } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AuthProvider, useAuth, usePermissions, type AuthState } from '../auth/auth-context';
import { LoadingRows } from '../components/common';
import { SignInPage } from '../features/auth/sign-in-page';
import { AcceptInvitationPage } from '../features/auth/accept-invitation-page';
import { Layout } from './layout';

// every page but the first is its own chunk, loaded when visited
const page = <K extends string>(load: () => Promise<Record<K, () => ReactNode>>, name: K) =>
  lazy(async () => ({ default: (await load())[name] }));
const OverviewPage = page(() => import('../features/overview/overview-page'), 'OverviewPage');
const KeysPage = page(() => import('../features/keys/keys-page'), 'KeysPage');
const ProjectsPage = page(() => import('../features/projects/projects-page'), 'ProjectsPage');
const ProjectPage = page(() => import('../features/projects/project-page'), 'ProjectPage');
const KnowledgeBasesPage = page(() => import('../features/knowledge/knowledge-page'), 'KnowledgeBasesPage');
const UsagePage = page(() => import('../features/usage/usage-page'), 'UsagePage');
const RequestsPage = page(() => import('../features/requests/requests-page'), 'RequestsPage');
const ModelsPage = page(() => import('../features/models/models-page'), 'ModelsPage');
const OperatorPage = page(() => import('../features/operator/operator-page'), 'OperatorPage');
const MembersPage = page(() => import('../features/members/members-page'), 'MembersPage');
const AuditPage = page(() => import('../features/audit/audit-page'), 'AuditPage');
const ProvidersPage = page(() => import('../features/providers/providers-page'), 'ProvidersPage');
const BillingPage = page(() => import('../features/billing/billing-page'), 'BillingPage');

export const theme = createTheme({
  primaryColor: 'blue',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  defaultRadius: 'md',
});

const colorSchemeManager = localStorageColorSchemeManager({ key: 'console.theme' });

function Home() {
  const can = usePermissions();
  return can.hasTeam ? <OverviewPage /> : <Navigate to="/operator" replace />;
}

const router = createBrowserRouter([
  { path: '/invitations/:token', element: <AcceptInvitationPage /> },
  {
    path: '/',
    element: <Gate />,
    children: [
      { index: true, element: <Home /> },
      { path: 'keys', element: <KeysPage /> },
      { path: 'projects', element: <ProjectsPage /> },
      { path: 'projects/:projectId', element: <ProjectPage /> },
      { path: 'projects/:projectId/:tab', element: <ProjectPage /> },
      { path: 'knowledge-bases', element: <KnowledgeBasesPage /> },
      { path: 'usage', element: <UsagePage /> },
      { path: 'requests', element: <RequestsPage /> },
      { path: 'models', element: <ModelsPage /> },
      { path: 'operator', element: <OperatorPage /> },
      { path: 'providers', element: <ProvidersPage /> },
      { path: 'members', element: <MembersPage /> },
      { path: 'audit-log', element: <AuditPage /> },
      { path: 'billing', element: <BillingPage /> },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);

/** Signed out: the sign-in page at any address; signed in: the layout and the page. */
function Gate() {
  const auth = useAuth();
  if (auth.status === 'loading') return <LoadingRows rows={3} />;
  if (auth.status === 'signed-out') return <SignInPage />;
  return <Layout />;
}

export function Providers({ children, auth }: { children: ReactNode; auth?: AuthState }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 } } }),
  );
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager}>
      <QueryClientProvider client={queryClient}>
        <AuthProvider initial={auth}>{children}</AuthProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}

export function App() {
  return (
    <Providers>
      <Suspense fallback={<LoadingRows rows={3} />}>
        <RouterProvider router={router} />
      </Suspense>
    </Providers>
  );
}
