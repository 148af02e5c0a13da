package tools

// Hub returns the registry of every Hub tool, reads first in each area.
// Connected-app writes go out through apps (nil: they fail saying connected
// apps are not set up on this server).
func Hub(apps Poster) *Registry {
	return NewRegistry(
		ListTasks, CreateTasks, UpdateTasks, DeleteTasks,
		ListProjects, CreateProject, UpdateProject,
		ListPeople, AddPerson, UpdatePerson, RemovePerson, ViewFile,
		ListConnections, PostUpdate(apps),
		ReadSkill, ReadSurface, UpdateSettings,
	)
}
