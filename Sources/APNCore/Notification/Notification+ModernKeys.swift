// aps keys Apple added after node-apn 1.x, written after node-apn's keys in the order
// declared here. Each is omitted while `nil`.
extension Notification {
    /// `thread-id`: groups notifications into a thread.
    public var threadID: String? {
        get { withState { $0.threadID } }
        set { withState { $0.threadID = newValue } }
    }

    /// `target-content-id`: the window or content to bring forward when opened.
    public var targetContentID: String? {
        get { withState { $0.targetContentID } }
        set { withState { $0.targetContentID = newValue } }
    }

    /// `interruption-level`: how strongly the notification may interrupt.
    public var interruptionLevel: InterruptionLevel? {
        get { withState { $0.interruptionLevel } }
        set { withState { $0.interruptionLevel = newValue } }
    }

    /// `relevance-score`: 0.0 to 1.0, ranks notifications in a summary.
    public var relevanceScore: Double? {
        get { withState { $0.relevanceScore } }
        set { withState { $0.relevanceScore = newValue } }
    }

    /// `filter-criteria`: matched against the device's Focus filters.
    public var filterCriteria: String? {
        get { withState { $0.filterCriteria } }
        set { withState { $0.filterCriteria = newValue } }
    }

    /// `timestamp` (Live Activity): UNIX seconds of the update.
    public var timestamp: Int? {
        get { withState { $0.timestamp } }
        set { withState { $0.timestamp = newValue } }
    }

    /// `event` (Live Activity): `start`, `update` or `end`.
    public var event: String? {
        get { withState { $0.event } }
        set { withState { $0.event = newValue } }
    }

    /// `content-state` (Live Activity): the activity's dynamic content.
    public var contentState: JSONObject? {
        get { withState { $0.contentState } }
        set { withState { $0.contentState = newValue } }
    }

    /// `stale-date` (Live Activity): UNIX seconds after which the content is outdated.
    public var staleDate: Int? {
        get { withState { $0.staleDate } }
        set { withState { $0.staleDate = newValue } }
    }

    /// `dismissal-date` (Live Activity): UNIX seconds at which an ended activity goes away.
    public var dismissalDate: Int? {
        get { withState { $0.dismissalDate } }
        set { withState { $0.dismissalDate = newValue } }
    }

    /// `attributes-type` (Live Activity start): the name of the activity's attributes type.
    public var attributesType: String? {
        get { withState { $0.attributesType } }
        set { withState { $0.attributesType = newValue } }
    }

    /// `attributes` (Live Activity start): the activity's static attributes.
    public var attributes: JSONObject? {
        get { withState { $0.attributes } }
        set { withState { $0.attributes = newValue } }
    }

    /// Sets ``threadID``.
    @discardableResult
    public func setThreadID(_ threadID: String?) -> Self {
        self.threadID = threadID
        return self
    }

    /// Sets ``targetContentID``.
    @discardableResult
    public func setTargetContentID(_ targetContentID: String?) -> Self {
        self.targetContentID = targetContentID
        return self
    }

    /// Sets ``interruptionLevel``.
    @discardableResult
    public func setInterruptionLevel(_ interruptionLevel: InterruptionLevel?) -> Self {
        self.interruptionLevel = interruptionLevel
        return self
    }

    /// Sets ``relevanceScore``.
    @discardableResult
    public func setRelevanceScore(_ relevanceScore: Double?) -> Self {
        self.relevanceScore = relevanceScore
        return self
    }

    /// Sets ``filterCriteria``.
    @discardableResult
    public func setFilterCriteria(_ filterCriteria: String?) -> Self {
        self.filterCriteria = filterCriteria
        return self
    }

    /// Sets ``timestamp``.
    @discardableResult
    public func setTimestamp(_ timestamp: Int?) -> Self {
        self.timestamp = timestamp
        return self
    }

    /// Sets ``event``.
    @discardableResult
    public func setEvent(_ event: String?) -> Self {
        self.event = event
        return self
    }

    /// Sets ``contentState``.
    @discardableResult
    public func setContentState(_ contentState: JSONObject?) -> Self {
        self.contentState = contentState
        return self
    }

    /// Sets ``staleDate``.
    @discardableResult
    public func setStaleDate(_ staleDate: Int?) -> Self {
        self.staleDate = staleDate
        return self
    }

    /// Sets ``dismissalDate``.
    @discardableResult
    public func setDismissalDate(_ dismissalDate: Int?) -> Self {
        self.dismissalDate = dismissalDate
        return self
    }

    /// Sets ``attributesType``.
    @discardableResult
    public func setAttributesType(_ attributesType: String?) -> Self {
        self.attributesType = attributesType
        return self
    }

    /// Sets ``attributes``.
    @discardableResult
    public func setAttributes(_ attributes: JSONObject?) -> Self {
        self.attributes = attributes
        return self
    }
}
