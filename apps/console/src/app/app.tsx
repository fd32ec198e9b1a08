import { lazy, Suspense, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import {
  MantineProvider,
  createTheme,
  darken,
  localStorageColorSchemeManager,
  type CSSVariablesResolver,
} from '@mantine/core';
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
const AlertsPage = page(() => import('../features/alerts/alerts-page'), 'AlertsPage');
const McpPage = page(() => import('../features/mcp/mcp-page'), 'McpPage');

export const theme = createTheme({
  primaryColor: 'blue',
  // shade 8: white on the primary colour and the primary colour on white both reach 4.5:1 (WCAG AA)
  primaryShade: { light: 8, dark: 8 },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  defaultRadius: 'md',
  components: {
    // a table wider than the screen scrolls inside the page; its scrolling area takes keyboard focus
    TableScrollContainer: { defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } } },
    // the chips of a multi-select keep AA contrast when the field is disabled (dimmed to 60 %) in dark
    Pill: { styles: { root: { color: 'var(--mantine-color-bright)' } } },
  },
});

/** The colours of "light" badges and alerts, whatever colour a page gives them. */
const LIGHT_VARIANT_COLORS = [
  'gray',
  'red',
  'pink',
  'grape',
  'violet',
  'indigo',
  'cyan',
  'green',
  'lime',
  'yellow',
  'orange',
];

/** Dimmed text and "light" variants darker (light) or lighter (dark) than the defaults: AA contrast. */
const contrastVariables: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    // the text of a light badge or alert on its pale background: shade 9 darkened, 4.5:1 or more
    ...Object.fromEntries(
      LIGHT_VARIANT_COLORS.map((c) => [`--mantine-color-${c}-light-color`, darken(t.colors[c][9], 0.35)]),
    ),
    // an invalid field's text and message on white
    '--mantine-color-error': t.colors.red[9],
    '--mantine-color-dimmed': t.colors.gray[7],
    // placeholders (and a file input's "pick a file" text) are read too: AA contrast like dimmed text
    '--mantine-color-placeholder': t.colors.gray[7],
    '--mantine-color-blue-light-color': t.colors.blue[9],
    '--mantine-color-blue-light': t.colors.blue[0],
    '--mantine-color-blue-light-hover': t.colors.blue[1],
    '--mantine-color-teal-light-color': t.colors.teal[9],
    '--mantine-color-teal-light': t.colors.teal[0],
    '--mantine-color-red-light-color': t.colors.red[9],
    '--mantine-color-red-light': t.colors.red[0],
    '--mantine-color-gray-light-color': t.colors.gray[8],
  },
  dark: {
    ...Object.fromEntries(LIGHT_VARIANT_COLORS.map((c) => [`--mantine-color-${c}-light-color`, t.colors[c][2]])),
    '--mantine-color-error': t.colors.red[4],
    '--mantine-color-dimmed': t.colors.dark[1],
    '--mantine-color-placeholder': t.colors.dark[1],
    '--mantine-color-blue-light-color': t.colors.blue[2],
    '--mantine-color-teal-light-color': t.colors.teal[2],
    '--mantine-color-red-light-color': t.colors.red[2],
  },
});

/** The theme in the current language: the close buttons of dialogs and drawers are named. */
function useLocalizedTheme() {
  const { t, i18n } = useTranslation();
  return useMemo(
    () =>
      createTheme({
        ...theme,
        components: {
          ...theme.components,
          Modal: { defaultProps: { closeButtonProps: { 'aria-label': t('common.close') } } },
          Drawer: { defaultProps: { closeButtonProps: { 'aria-label': t('common.close') } } },
          Alert: { defaultProps: { closeButtonLabel: t('common.close') } },
        },
      }),
    [t, i18n.language],
  );
}

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
      { path: 'mcp', element: <McpPage /> },
      { path: 'usage', element: <UsagePage /> },
      { path: 'requests', element: <RequestsPage /> },
      { path: 'models', element: <ModelsPage /> },
      { path: 'operator', element: <OperatorPage /> },
      { path: 'providers', element: <ProvidersPage /> },
      { path: 'members', element: <MembersPage /> },
      { path: 'audit-log', element: <AuditPage /> },
      { path: 'billing', element: <BillingPage /> },
      { path: 'alerts', element: <AlertsPage /> },
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
  const localized = useLocalizedTheme();
  return (
    <MantineProvider
      theme={localized}
      defaultColorScheme="auto"
      colorSchemeManager={colorSchemeManager}
      cssVariablesResolver={contrastVariables}
    >
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
