/**
 * The branding preview's page: a stand-in for the owner's site, with the
 * preview script (which loads the real widget.js) and nothing inline. It may
 * be framed by the dashboard only.
 */
export function previewPage(assetVersion: string): string {
  const v = encodeURIComponent(assetVersion);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Widget preview</title>
<link rel="icon" href="data:,">
<script src="/dashboard/preview.js?v=${v}" defer></script>
</head>
<body>
<h1>Your website</h1>
<p>This is how the chat looks on your pages with the settings in the form.</p>
</body>
</html>
`;
}
