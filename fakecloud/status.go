package fakecloud

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"

// StatusForCode returns the HTTP status the API uses for an error code.
// Codes the API's table does not name (the many resource-specific ones
// such as server_not_attached_to_network) are 422, as the API answers them.
func StatusForCode(code string) int { return apierr.Status(code) }
