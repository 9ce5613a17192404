package dashboard

import "slices"

// screens are the signed-in pages: each screen is one handler file with
// its routes (a method returning []route) and one template; add a screen's
// routes here and its entry to nav (render.go) when it has one.
func (a *App) screens() []route {
	return slices.Concat(
		a.overviewRoutes(),
		a.keyRoutes(),
		a.webhookRoutes(),
		a.auditRoutes(),
		a.previewRoutes(),
		a.emailRoutes(),
		a.approvalRoutes(),
		a.heldRoutes(),
		a.campaignRoutes(),
		a.suppressionRoutes(), a.contactRoutes(), a.segmentRoutes(), a.templateRoutes(),
		a.domainRoutes(), a.senderRoutes(), a.workspaceRoutes(), a.rotateRoutes(),
		a.automationRoutes(),
		a.connectRoutes(),
	)
}
