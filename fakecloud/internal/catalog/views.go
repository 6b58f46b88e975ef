package catalog

import (
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// The catalogue's answers as the live API gives them since 2026-11-02
// (changelog 2026-09-08 "Removing the deprecated field"): images, server
// types and load balancer types no longer carry "deprecated", only
// "deprecation". hcloud-go's schema types still send the old field, so
// these views leave it out.

// ServerTypeView is a server type as the API answers it.
type ServerTypeView struct {
	ID              int64                           `json:"id"`
	Name            string                          `json:"name"`
	Description     string                          `json:"description"`
	Category        string                          `json:"category"`
	Cores           int                             `json:"cores"`
	Memory          float32                         `json:"memory"`
	Disk            int                             `json:"disk"`
	StorageType     string                          `json:"storage_type"`
	CPUType         string                          `json:"cpu_type"`
	Architecture    string                          `json:"architecture"`
	IncludedTraffic int64                           `json:"included_traffic"` // 0 since 2024-08-05: see Prices
	Prices          []schema.PricingServerTypePrice `json:"prices"`
	Deprecation     *schema.DeprecationInfo         `json:"deprecation"`
	Locations       []schema.ServerTypeLocation     `json:"locations"`
}

// ViewServerType is the answer for a server type.
func ViewServerType(t schema.ServerType) ServerTypeView {
	return ServerTypeView{ID: t.ID, Name: t.Name, Description: t.Description, Category: t.Category,
		Cores: t.Cores, Memory: t.Memory, Disk: t.Disk, StorageType: t.StorageType, CPUType: t.CPUType,
		Architecture: t.Architecture, Prices: t.Prices, Deprecation: t.Deprecation, Locations: t.Locations}
}

// LBTypeView is a load balancer type as the API answers it.
type LBTypeView struct {
	ID                      int64                                 `json:"id"`
	Name                    string                                `json:"name"`
	Description             string                                `json:"description"`
	MaxConnections          int                                   `json:"max_connections"`
	MaxServices             int                                   `json:"max_services"`
	MaxTargets              int                                   `json:"max_targets"`
	MaxAssignedCertificates int                                   `json:"max_assigned_certificates"`
	Prices                  []schema.PricingLoadBalancerTypePrice `json:"prices"`
	Deprecation             *schema.DeprecationInfo               `json:"deprecation"`
}

// ViewLBType is the answer for a load balancer type.
func ViewLBType(t schema.LoadBalancerType) LBTypeView {
	return LBTypeView{ID: t.ID, Name: t.Name, Description: t.Description, MaxConnections: t.MaxConnections,
		MaxServices: t.MaxServices, MaxTargets: t.MaxTargets, MaxAssignedCertificates: t.MaxAssignedCertificates,
		Prices: t.Prices, Deprecation: t.Deprecation}
}

// ImageView is an image as the API answers it.
type ImageView struct {
	ID           int64                    `json:"id"`
	Status       string                   `json:"status"`
	Type         string                   `json:"type"`
	Name         *string                  `json:"name"`
	Description  string                   `json:"description"`
	ImageSize    *float32                 `json:"image_size"`
	DiskSize     float32                  `json:"disk_size"`
	Created      *time.Time               `json:"created"`
	CreatedFrom  *schema.ImageCreatedFrom `json:"created_from"`
	BoundTo      *int64                   `json:"bound_to"`
	OSFlavor     string                   `json:"os_flavor"`
	OSVersion    *string                  `json:"os_version"`
	Architecture string                   `json:"architecture"`
	RapidDeploy  bool                     `json:"rapid_deploy"`
	Protection   schema.ImageProtection   `json:"protection"`
	Deprecation  *schema.DeprecationInfo  `json:"deprecation"`
	Deleted      *time.Time               `json:"deleted"`
	Labels       map[string]string        `json:"labels"`
}

// ViewImage is the answer for an image.
func ViewImage(im schema.Image) ImageView {
	return ImageView{ID: im.ID, Status: im.Status, Type: im.Type, Name: im.Name, Description: im.Description,
		ImageSize: im.ImageSize, DiskSize: im.DiskSize, Created: im.Created, CreatedFrom: im.CreatedFrom,
		BoundTo: im.BoundTo, OSFlavor: im.OSFlavor, OSVersion: im.OSVersion, Architecture: im.Architecture,
		RapidDeploy: im.RapidDeploy, Protection: im.Protection, Deprecation: im.Deprecation, Deleted: im.Deleted,
		Labels: im.Labels}
}
